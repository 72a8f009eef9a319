import { sameSecret } from '../checks.js';
import { revokeGrant } from '../model/grants.js';
import { type Ctx, field, readForm, redirect, sendHtml } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import { currentSession } from '../server/sessions.js';
import type { EmulatorState } from '../state.js';
import { accountPage } from '../views/account-page.js';
import { errorPage } from '../views/layout.js';

function showAccount(state: EmulatorState, ctx: Ctx): void {
  const session = currentSession(state, ctx);
  if (!session) return redirect(ctx.res, '/in/login?next=%2Fin%2Faccount');
  const grants = [...state.grants.values()]
    .filter((g) => g.userId === session.userId)
    .map((g) => ({ ...g, clientName: state.clients.get(g.clientID)?.name ?? g.clientID }));
  sendHtml(ctx.res, 200, accountPage(session.userId, grants, session.csrf));
}

async function revoke(state: EmulatorState, ctx: Ctx): Promise<void> {
  const form = await readForm(ctx.req);
  const session = currentSession(state, ctx);
  if (!form || !session || !sameSecret(field(form, 'csrf') ?? '', session.csrf)) {
    return sendHtml(ctx.res, 403, errorPage('Session expired', 'Log in again to manage your apps.'));
  }
  const clientID = field(form, 'client_id') ?? '';
  if (revokeGrant(state, clientID, session.userId)) state.log(`user ${session.userId} revoked ${clientID}`);
  redirect(ctx.res, '/in/account');
}

/** The account page where a user revokes an app (docs/kudos-service.md#limits rule b). */
export function accountRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.account, (ctx) => showAccount(state, ctx));
  router.on(ROUTES.accountRevoke, (ctx) => revoke(state, ctx));
}
