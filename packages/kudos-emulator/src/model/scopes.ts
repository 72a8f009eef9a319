// Which scopes a token's grant covers, as the service decides it (the hierarchy of its scopes): a
// scope covers itself and every narrower one. `read:kudos` covers `read:kudos.info`; a bare `read`
// or `write` covers every scope of that action; a bare `kudos` covers `read:kudos…` and
// `write:kudos…`; `profile` and `email` stand alone. The emulator enforces the rule on its own
// reading of the service, not through the library's hasScope(): a misreading of either shows up in
// the tests that hold one against the other.

/** `[action, area]` of a scope: `read:kudos.info` is `['read', 'kudos.info']`, `read` is `['read', '']`. */
function partsOf(scope: string): [action: string | undefined, area: string] {
  const colon = scope.indexOf(':');
  if (colon >= 0) return [scope.slice(0, colon), scope.slice(colon + 1)];
  return scope === 'read' || scope === 'write' ? [scope, ''] : [undefined, scope];
}

/** Whether area `wide` is area `narrow` or contains it (`kudos` contains `kudos.info`; '' all). */
function contains(wide: string, narrow: string): boolean {
  return wide === '' || wide === narrow || narrow.startsWith(`${wide}.`);
}

function covers(granted: string, needed: string): boolean {
  const [grantedAction, grantedArea] = partsOf(granted);
  const [neededAction, neededArea] = partsOf(needed);
  // A scope without an action (profile, email, a bare area) is covered by its own kind only.
  if (neededAction === undefined) return grantedAction === undefined && contains(grantedArea, neededArea);
  return (grantedAction === undefined || grantedAction === neededAction) && contains(grantedArea, neededArea);
}

function listOf(scopes: string | readonly string[]): string[] {
  return (typeof scopes === 'string' ? scopes.split(' ') : [...scopes]).filter((scope) => scope !== '');
}

/** Whether the granted scopes (a list, or the space-separated form of a token) cover every needed one. */
export function grantCovers(
  granted: string | readonly string[],
  needed: string | readonly string[],
): boolean {
  const grant = listOf(granted);
  return listOf(needed).every((scope) => grant.some((held) => held === scope || covers(held, scope)));
}
