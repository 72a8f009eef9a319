import { KUDOS_SCOPE_DESCRIPTIONS } from 'kudos-core';
import { sameSecret } from '../checks.js';
import type { EmulatorClient } from '../emulator-options.js';
import { redirectURIAllowed } from '../model/clients.js';
import { issueCode } from '../model/grants.js';
import { grantCovers } from '../model/scopes.js';
import { type Ctx, field, readForm, redirect, sendHtml, withQuery } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import { currentSession } from '../server/sessions.js';
import { type EmulatorState, grantKey } from '../state.js';
import { consentPage } from '../views/auth-pages.js';
import { errorPage } from '../views/layout.js';

/** A checked authorization request. */
interface AuthorizationRequest {
  client: Required<EmulatorClient>;
  redirectURI: string;
  scopes: string[];
  state: string | undefined;
}

type Checked =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; status: number; title: string; message: string };

/** Descriptions of the umbrella scopes of the hierarchy (docs/kudos-service.md#scopes), which the scope table does not list. */
const UMBRELLA_DESCRIPTIONS: Record<string, string> = {
  read: 'Read access to everything the other read: scopes cover',
  write: 'Write access to everything the other write: scopes cover',
  kudos: 'Read and write access to all kudos-related scopes',
};

function describeScope(scope: string): string {
  return (
    (KUDOS_SCOPE_DESCRIPTIONS as Record<string, string>)[scope] ??
    UMBRELLA_DESCRIPTIONS[scope] ??
    'Access named by this scope'
  );
}

/**
 * Checks the parameters of docs/kudos-service.md#authorization-page. Every problem is an error page, never a redirect: an
 * unknown client or a redirect URI that is not whitelisted cannot be trusted with one.
 */
export function checkAuthorizationRequest(state: EmulatorState, params: URLSearchParams): Checked {
  const clientID = field(params, 'client_id');
  const client = clientID ? state.clients.get(clientID) : undefined;
  if (!client) {
    return {
      ok: false,
      status: 400,
      title: 'Unknown application',
      message: 'client_id is missing or unknown.',
    };
  }
  const redirectURI = field(params, 'redirect_uri');
  if (!redirectURI || !redirectURIAllowed(client, redirectURI)) {
    return {
      ok: false,
      status: 400,
      title: 'Invalid redirect address',
      message: `redirect_uri is missing or not whitelisted for ${client.name}.`,
    };
  }
  // Observed: response_type is not read at all (no error for a missing or other value), and the
  // page refuses no scope for being an unknown word: the API judges the token by what was granted.
  // A client configured with a scope whitelist (`scopes`) is held to it.
  const requested = [...new Set((field(params, 'scope') ?? '').split(' ').filter(Boolean))];
  const refused = client.scopes === null ? [] : requested.filter((s) => !client.scopes?.includes(s));
  if (refused.length > 0) {
    return {
      ok: false,
      status: 400,
      title: 'Invalid scope',
      message: `Scope ${refused.map((s) => `"${s}"`).join(', ')} is not whitelisted for ${client.name}.`,
    };
  }
  const states = params.getAll('state');
  if (states.length > 1)
    return { ok: false, status: 400, title: 'Invalid request', message: 'state was given twice.' };
  return {
    ok: true,
    // An empty state is not sent back (observed): only a non-empty one.
    request: { client, redirectURI, scopes: grantedScopes(client, requested), state: states[0] || undefined },
  };
}

/** Scope words the authorization page grants as they are (docs/kudos-service.md#authorization-page). */
const STANDALONE_SCOPES = new Set(['profile', 'email']);

/**
 * What the service grants for the requested scopes (observed, docs/kudos-service.md#authorization-page):
 * every word without a `:` other than `profile` and `email` becomes `read:X write:X` (`kudos` ->
 * `read:kudos write:kudos`, `read` -> `read:read write:read`), and `profile` is always added. With no
 * scope at all, exactly the client's default scopes (as configured: `profile` unless set otherwise).
 */
function grantedScopes(client: Required<EmulatorClient>, requested: readonly string[]): string[] {
  if (requested.length === 0) return [...new Set(client.defaultScopes)];
  const expanded = requested.flatMap((scope) =>
    scope.includes(':') || STANDALONE_SCOPES.has(scope) ? [scope] : [`read:${scope}`, `write:${scope}`],
  );
  return [...new Set(['profile', ...expanded])];
}

/** Issues a code for an accepted (or earlier accepted) request and sends the browser back with it. */
function sendBackWithCode(
  state: EmulatorState,
  ctx: Ctx,
  userId: string,
  request: AuthorizationRequest,
): void {
  const { client, redirectURI, scopes } = request;
  const failure = state.nextAuthorizeError;
  if (failure !== undefined) {
    // As when the service's authorize call fails (observed): its error word, and no state.
    state.nextAuthorizeError = undefined;
    state.log(`authorization of ${client.clientID} for ${userId} failed: ${failure}`);
    return redirect(ctx.res, withQuery(redirectURI, { error: failure }));
  }
  const code = issueCode(state, { clientID: client.clientID, userId, redirectURI, scope: scopes });
  state.log(`user ${userId} authorized ${client.clientID} for ${scopes.join(' ')}`);
  redirect(ctx.res, withQuery(redirectURI, { [state.options.codeParam]: code, state: request.state }));
}

async function showConsent(state: EmulatorState, ctx: Ctx): Promise<void> {
  const checked = checkAuthorizationRequest(state, ctx.url.searchParams);
  if (!checked.ok) return sendHtml(ctx.res, checked.status, errorPage(checked.title, checked.message));
  // autoLogin (for end-to-end tests): that user signs in and accepts at once.
  if (state.options.autoLogin !== undefined) {
    return sendBackWithCode(state, ctx, state.options.autoLogin, checked.request);
  }
  const session = currentSession(state, ctx);
  if (!session) {
    // As the service's web app: its authentication step, with the whole page's absolute URL to return to.
    const page = `http://${ctx.req.headers.host ?? state.host}${ctx.url.pathname}${ctx.url.search}`;
    return redirect(ctx.res, `/in/register?redirect=${encodeURIComponent(page)}`);
  }
  const { client, redirectURI, scopes } = checked.request;
  // Observed: the page asks whether the user's earlier grant covers every scope now requested; only
  // then is the consent page skipped. A wider request asks again.
  const earlier = state.grants.get(grantKey(client.clientID, session.userId));
  if (state.options.skipConsentWhenAuthorized && earlier && grantCovers(earlier.scope, scopes)) {
    return sendBackWithCode(state, ctx, session.userId, checked.request);
  }
  const lines = scopes.map((scope) => ({ scope, description: describeScope(scope) }));
  sendHtml(
    ctx.res,
    200,
    consentPage(client, session.userId, lines, {
      client_id: client.clientID,
      redirect_uri: redirectURI,
      scope: field(ctx.url.searchParams, 'scope') ?? '', // as requested: decide() derives the grant again
      state: checked.request.state,
      csrf: session.csrf,
    }),
  );
}

async function decide(state: EmulatorState, ctx: Ctx): Promise<void> {
  const form = await readForm(ctx.req);
  if (!form) return sendHtml(ctx.res, 400, errorPage('Invalid request', 'The form could not be read.'));
  const session = currentSession(state, ctx);
  if (!session || !sameSecret(field(form, 'csrf') ?? '', session.csrf)) {
    return sendHtml(ctx.res, 403, errorPage('Session expired', 'Log in again and retry the authorization.'));
  }
  const checked = checkAuthorizationRequest(state, form);
  if (!checked.ok) return sendHtml(ctx.res, checked.status, errorPage(checked.title, checked.message));
  const { client, redirectURI } = checked.request;
  const decision = field(form, 'decision');
  if (decision === 'decline') {
    state.log(`user ${session.userId} declined ${client.clientID}`);
    return redirect(ctx.res, withQuery(redirectURI, { error: 'denied', state: checked.request.state }));
  }
  if (decision !== 'accept')
    return sendHtml(ctx.res, 400, errorPage('Invalid request', 'Choose Accept or Decline.'));
  sendBackWithCode(state, ctx, session.userId, checked.request);
}

/** Routes of the authorization page (docs/kudos-service.md#authorization-page). */
export function authorizeRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.authorize, (ctx) => showConsent(state, ctx));
  router.on(ROUTES.authorizeDecision, (ctx) => decide(state, ctx));
}
