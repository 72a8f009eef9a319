import { ADMIN_SESSION_MS } from '../admin-sessions.js';
import { ADMIN_COOKIE, hasAdminAccess, isAdminToken } from '../server/admin-access.js';
import { type Ctx, redirect, sendHtml, setCookie } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';
import { homePage } from '../views/home-page.js';
import { errorPage } from '../views/layout.js';
import type { WebhookSender } from '../webhook-sender.js';
import { stateJson } from './admin.js';

/**
 * The home page. With an admin token it shows only to a request that carries it: opened once as
 * `/?admin_token=TOKEN`, it sets an HttpOnly, SameSite=Lax cookie and sends the browser on to `/`.
 */
function showHome(state: EmulatorState, webhooks: WebhookSender, ctx: Ctx): void {
  const token = state.options.adminToken;
  if (token !== undefined) {
    const given = ctx.url.searchParams.get('admin_token');
    if (given !== null) {
      if (isAdminToken(state, given)) {
        const session = state.adminSessions.open(ctx.req.headers.host ?? '');
        setCookie(ctx.res, ADMIN_COOKIE, session, ADMIN_SESSION_MS / 1000);
      }
      return redirect(ctx.res, '/');
    }
    if (!hasAdminAccess(state, ctx)) {
      return sendHtml(
        ctx.res,
        401,
        errorPage(
          'Admin token needed',
          'This emulator has an admin token: open /?admin_token=YOUR_TOKEN once.',
        ),
      );
    }
  }
  sendHtml(ctx.res, 200, homePage(stateJson(state, webhooks), state.adminCsrf));
}

/** The home page's route. */
export function homeRoutes(router: Router, state: EmulatorState, webhooks: WebhookSender): void {
  router.on(ROUTES.home, (ctx) => showHome(state, webhooks, ctx));
}
