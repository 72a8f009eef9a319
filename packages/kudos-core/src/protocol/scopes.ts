/**
 * Kudos scopes and their hierarchy.
 *
 * @see docs/kudos-service.md#scopes
 * @packageDocumentation
 */

/** The scopes Kudos documents, with their descriptions from the interface (docs/kudos-service.md#scopes). */
export const KUDOS_SCOPE_DESCRIPTIONS = {
  profile: 'Basic public user information',
  email: "Access to the user's e-mail address",
  'read:kudos': 'Read access to all kudos-related scopes',
  'write:kudos': 'Write access to all kudos-related scopes',
  'read:kudos.button': "Read the user's kudos history and suggestions",
  'write:kudos.button': 'Give kudos for the user',
  'read:kudos.info': "Read the user's kudos-given authors, content suggestions, and similar",
  'write:kudos.info': 'Write access to the kudos-info area',
} as const;

export type KnownKudosScope = keyof typeof KUDOS_SCOPE_DESCRIPTIONS;

/**
 * A scope string: one of the documented scopes (for editor completion), the umbrella scopes of
 * the hierarchy (`read`, `write`, `kudos`), or any other string the service may add.
 */
export type KudosScope = KnownKudosScope | 'read' | 'write' | 'kudos' | (string & {});

/** Every documented scope, in the order of docs/kudos-service.md#scopes. */
export const KNOWN_KUDOS_SCOPES = Object.keys(KUDOS_SCOPE_DESCRIPTIONS) as KnownKudosScope[];

const ACTIONS = new Set(['read', 'write']);

function splitScope(scope: string): { action: string | undefined; resource: string } {
  const colon = scope.indexOf(':');
  if (colon === -1)
    return ACTIONS.has(scope) ? { action: scope, resource: '' } : { action: undefined, resource: scope };
  return { action: scope.slice(0, colon), resource: scope.slice(colon + 1) };
}

function resourceCovers(granted: string, required: string): boolean {
  return granted === '' || required === granted || required.startsWith(`${granted}.`);
}

/**
 * Whether one granted scope covers one required scope. A scope covers itself and every narrower
 * scope below it: `read:kudos` covers `read:kudos.info`; `read` covers every `read:` scope; a bare
 * `kudos` covers `read:kudos…` and `write:kudos…`. `profile` and `email` cover only themselves.
 */
export function scopeCovers(granted: string, required: string): boolean {
  if (granted === required) return true;
  const g = splitScope(granted);
  const r = splitScope(required);
  if (r.action === undefined) return g.action === undefined && resourceCovers(g.resource, r.resource);
  if (g.action !== undefined && g.action !== r.action) return false;
  return resourceCovers(g.resource, r.resource);
}

/** Splits a space-separated scope string, or copies an array, dropping empty entries. */
function toScopeList(scopes: string | readonly string[]): string[] {
  const list = typeof scopes === 'string' ? scopes.split(/\s+/) : [...scopes];
  return list.filter((s) => s !== '');
}

/**
 * Whether the granted scopes cover every required scope, following the Kudos hierarchy.
 *
 * @param granted - scopes the token carries (array, or space-separated string)
 * @param required - scope or scopes an operation needs
 * @example
 * ```ts
 * import { hasScope } from 'passport-kudos';
 * const covered: boolean = hasScope(['read:kudos'], 'read:kudos.info'); // true
 * ```
 */
export function hasScope(granted: string | readonly string[], required: string | readonly string[]): boolean {
  const have = toScopeList(granted);
  return toScopeList(required).every((need) => have.some((g) => scopeCovers(g, need)));
}
