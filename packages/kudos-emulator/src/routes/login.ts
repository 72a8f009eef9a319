import { randomBytes } from 'node:crypto';
import { sameSecret } from '../checks.js';
import { DEMO_USERS, USER_ID_PATTERN } from '../emulator-options.js';
import { foreignOrigin } from '../server/host-check.js';
import { type Ctx, field, readForm, redirect, sendHtml, setCookie } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import { safeNext, startSession } from '../server/sessions.js';
import type { EmulatorState } from '../state.js';
import { loginPage, registerPage } from '../views/auth-pages.js';
import { errorPage } from '../views/layout.js';

/**
 * The demo accounts this emulator has with their published passwords, named on the login page so
 * that a developer knows how to sign in (accounts of its own configuration are not shown).
 */
function demoAccounts(state: EmulatorState): string[] {
  return DEMO_USERS.filter((demo) => state.users.get(demo.id)?.password === demo.password).map(
    (demo) => `${demo.id} / ${demo.password}`,
  );
}

/** The cookie half of the login and register forms' token (the other half is a hidden field). */
const FORM_COOKIE = 'kudos_emulator_form';

/**
 * A token for the login or register page: set as a cookie (SameSite=Lax: a page of another site
 * cannot send it with a POST) and put in the form, so a form posted from elsewhere is refused.
 */
function formToken(ctx: Ctx): string {
  const token = ctx.cookies.get(FORM_COOKIE) ?? randomBytes(18).toString('base64url');
  setCookie(ctx.res, FORM_COOKIE, token);
  return token;
}

/**
 * Whether a posted login or register form comes from the emulator's own page: sent by a browser from
 * this origin, port included, and carrying the token of its page. The origin check is what stops a
 * page on another port of the same host: cookies ignore ports, so such a page can set the form
 * cookie itself (cookie tossing); it cannot make the browser send this origin.
 */
function formTokenValid(state: EmulatorState, ctx: Ctx, form: URLSearchParams): boolean {
  // Without an Origin, a browser still says where a request comes from in Sec-Fetch-Site.
  const fetchSite = ctx.req.headers['sec-fetch-site'];
  const crossSite =
    ctx.req.headers.origin === undefined &&
    fetchSite !== undefined &&
    fetchSite !== 'same-origin' &&
    fetchSite !== 'none';
  if (foreignOrigin(ctx.req, state) || crossSite) return false;
  const cookie = ctx.cookies.get(FORM_COOKIE) ?? '';
  return cookie !== '' && sameSecret(field(form, 'form_token') ?? '', cookie);
}

const expired = (ctx: Ctx) =>
  sendHtml(
    ctx.res,
    403,
    errorPage(
      'Form expired',
      'The "form_token" field is missing or does not match this browser, or the form was sent from another site or port: it was not sent from the emulator page. Reload it.',
      'FORM_TOKEN_INVALID',
    ),
  );

async function login(state: EmulatorState, ctx: Ctx): Promise<void> {
  const form = await readForm(ctx.req);
  if (!form) return sendHtml(ctx.res, 400, errorPage('Invalid request', 'The form could not be read.'));
  if (!formTokenValid(state, ctx, form)) return expired(ctx);
  const next = safeNext(field(form, 'next'));
  const username = field(form, 'username') ?? '';
  const user = state.users.get(username);
  if (!user || !sameSecret(field(form, 'password') ?? '', user.password)) {
    return sendHtml(
      ctx.res,
      401,
      loginPage(next, 'Wrong username or password.', demoAccounts(state), formToken(ctx)),
    );
  }
  startSession(state, ctx, user.id);
  state.log(`user ${user.id} logged in`);
  redirect(ctx.res, next);
}

async function register(state: EmulatorState, ctx: Ctx): Promise<void> {
  const form = await readForm(ctx.req);
  if (!form) return sendHtml(ctx.res, 400, errorPage('Invalid request', 'The form could not be read.'));
  if (!formTokenValid(state, ctx, form)) return expired(ctx);
  const next = safeNext(field(form, 'next'));
  const values = {
    username: field(form, 'username') ?? '',
    displayName: (field(form, 'displayName') ?? '').trim(),
    email: (field(form, 'email') ?? '').trim(),
  };
  const password = field(form, 'password') ?? '';
  const problem = !USER_ID_PATTERN.test(values.username)
    ? 'Username must be 5 to 20 characters of a-z, 0-9, "-" and "_".'
    : state.users.has(values.username)
      ? 'That username is taken.'
      : password.length < 8
        ? 'Password must have 8 characters or more.'
        : values.email && !/^[^@\s]+@[^@\s]+$/.test(values.email)
          ? 'E-mail address is not valid.'
          : values.displayName.length > 80
            ? 'Display name must have 80 characters or fewer.'
            : undefined;
  if (problem) return sendHtml(ctx.res, 400, registerPage(next, problem, values, formToken(ctx)));
  state.users.set(values.username, {
    id: values.username,
    password,
    displayName: values.displayName || values.username,
    ...(values.email ? { email: values.email } : {}),
  });
  startSession(state, ctx, values.username);
  state.log(`user ${values.username} registered`);
  redirect(ctx.res, next);
}

/** The path of `url` when it is an absolute URL of this emulator (as the browser named it), else undefined. */
function ownPath(url: string, host: string): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return parsed.protocol === 'http:' && parsed.host === host ? parsed.pathname + parsed.search : undefined;
}

/** Login and registration pages of the emulator's own accounts. */
export function loginRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.loginPage, (ctx) => {
    sendHtml(
      ctx.res,
      200,
      loginPage(safeNext(ctx.url.searchParams.get('next')), undefined, demoAccounts(state), formToken(ctx)),
    );
  });
  router.on(ROUTES.login, (ctx) => login(state, ctx));
  router.on(ROUTES.registerPage, (ctx) => {
    const back = ctx.url.searchParams.get('redirect');
    if (back !== null) {
      // Where the authorization page sends a visitor who is not signed in (`redirect`: the page's
      // absolute URL): signing in comes first, registering is a link away.
      const next = safeNext(ownPath(back, ctx.req.headers.host ?? state.host));
      return sendHtml(ctx.res, 200, loginPage(next, undefined, demoAccounts(state), formToken(ctx)));
    }
    sendHtml(
      ctx.res,
      200,
      registerPage(safeNext(ctx.url.searchParams.get('next')), undefined, {}, formToken(ctx)),
    );
  });
  router.on(ROUTES.register, (ctx) => register(state, ctx));
}
