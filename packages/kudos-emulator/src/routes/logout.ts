import { sameSecret } from '../checks.js';
import { clientOriginAllowed } from '../model/clients.js';
import { type Ctx, field, readForm, redirect, sendHtml } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import { currentSession, endSession } from '../server/sessions.js';
import type { EmulatorState } from '../state.js';
import { logoutPage } from '../views/account-page.js';
import { errorPage } from '../views/layout.js';

// Signing out of the emulator, and back to the app that sent the user here: the two parameters of
// OpenID Connect RP-Initiated Logout 1.0 (`client_id`, `post_logout_redirect_uri`). The service's own
// sign-out is not documented; an app that offers "sign in as someone else" needs this one.

/** The return address when `client_id` names a client and the address is that client's, else undefined. */
function returnAddress(
  state: EmulatorState,
  clientID: string | null,
  uri: string | null,
): string | undefined {
  const client = clientID ? state.clients.get(clientID) : undefined;
  return client && uri && clientOriginAllowed(client, uri) ? uri : undefined;
}

function showLogout(state: EmulatorState, ctx: Ctx): void {
  const params = ctx.url.searchParams;
  const back = returnAddress(state, params.get('client_id'), params.get('post_logout_redirect_uri'));
  if (params.has('post_logout_redirect_uri') && back === undefined) {
    return sendHtml(
      ctx.res,
      400,
      errorPage(
        'Cannot return to the app',
        'post_logout_redirect_uri is not an address of the client named by client_id.',
        'invalid_request',
      ),
    );
  }
  const session = currentSession(state, ctx);
  if (!session) return redirect(ctx.res, back ?? '/in/login'); // signed out already
  sendHtml(ctx.res, 200, logoutPage(session.userId, session.csrf, back && params.get('client_id'), back));
}

async function logout(state: EmulatorState, ctx: Ctx): Promise<void> {
  const form = await readForm(ctx.req);
  const session = currentSession(state, ctx);
  // Compared in constant time, as every other form token of the emulator.
  if (session && form && sameSecret(field(form, 'csrf') ?? '', session.csrf)) endSession(state, ctx);
  const back =
    form &&
    returnAddress(state, field(form, 'client_id') ?? null, field(form, 'post_logout_redirect_uri') ?? null);
  redirect(ctx.res, back ?? '/in/login');
}

/** The sign-out page and form. */
export function logoutRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.logoutPage, (ctx) => showLogout(state, ctx));
  router.on(ROUTES.logout, (ctx) => logout(state, ctx));
}
