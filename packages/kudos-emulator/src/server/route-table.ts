/**
 * The emulator's one route table. The router registers exactly these routes (each route module
 * names its entry), and every list of endpoints is made from it: the home page, the emulator's
 * README and docs/emulator.md (checked by packages/kudos-emulator/test/route-table.test.ts).
 *
 * To add an operation: add an entry here, then register a handler for it in a module of routes/.
 */

/** Where a route's path is relative to: `{authURL}` (the server's root: pages) or `{baseURL}` (the API, `/api`). */
type RouteBase = 'authURL' | 'baseURL';

export interface EmulatorRoute {
  readonly method: 'GET' | 'POST';
  /** Path on the server, as shown (placeholders in braces); the API's paths start with `/api`. */
  readonly path: string;
  /** What the path is shown relative to. */
  readonly base: RouteBase;
  /** The path as a pattern, when it is not the path with each `{name}` one segment (groups become the handler's params). */
  readonly pattern?: RegExp;
  /** What it is, for people. */
  readonly what: string;
  /** The operation it serves, as passport-kudos's tracing channels name it (the `verbose` log). */
  readonly operation?: EmulatorOperation;
}

/** The operations of the `verbose` log: passport-kudos's channel names without `passport-kudos:`. */
export type EmulatorOperation = 'authorize' | 'token' | 'refresh' | 'revoke' | 'api' | 'confirm';

import { KUDOS_API, KUDOS_CHAIN, KUDOS_PAGES } from 'kudos-core';

/** The API's prefix on the emulator's server: `{baseURL}` is `{origin}/api`. */
export const API_PREFIX = '/api';

export const ROUTES = {
  home: {
    method: 'GET',
    path: '/',
    base: 'authURL',
    what: 'home page: endpoints, clients, users, agents, transactions, deliveries',
  },
  authorize: {
    method: 'GET',
    path: KUDOS_PAGES.authorize,
    base: 'authURL',
    pattern: /^\/in\/oauth\/?$/,
    what: 'authorization page (sign in, consent)',
    operation: 'authorize',
  },
  authorizeDecision: {
    method: 'POST',
    path: KUDOS_PAGES.authorize,
    base: 'authURL',
    pattern: /^\/in\/oauth\/?$/,
    what: 'consent form: accept or decline',
    operation: 'authorize',
  },
  loginPage: { method: 'GET', path: '/in/login', base: 'authURL', what: 'sign-in page' },
  login: { method: 'POST', path: '/in/login', base: 'authURL', what: 'sign-in form' },
  registerPage: {
    method: 'GET',
    path: '/in/register',
    base: 'authURL',
    what: "registration page; with `redirect` (where the authorization page sends a visitor not signed in: the page's absolute URL), the sign-in form first",
  },
  register: { method: 'POST', path: '/in/register', base: 'authURL', what: 'registration form' },
  logoutPage: {
    method: 'GET',
    path: '/in/logout',
    base: 'authURL',
    what: "sign-out page; with `client_id` and `post_logout_redirect_uri` (an address on the origin of one of that client's redirect URIs), back to the app afterwards (OpenID Connect RP-Initiated Logout)",
  },
  logout: {
    method: 'POST',
    path: '/in/logout',
    base: 'authURL',
    what: "sign out of the emulator; then to the form's `post_logout_redirect_uri` when its client allows it, else the sign-in page",
  },
  account: {
    method: 'GET',
    path: '/in/account',
    base: 'authURL',
    what: 'account page: authorized apps, each with a Revoke button',
  },
  accountRevoke: {
    method: 'POST',
    path: '/in/account/revoke',
    base: 'authURL',
    what: 'the user revokes an app',
  },
  widget: {
    method: 'GET',
    path: KUDOS_PAGES.widget,
    base: 'authURL',
    what: 'payment widget: to, amount, via, fee, remarks, state, redirect_uri, blocking, opener',
  },
  widgetConfirm: {
    method: 'POST',
    path: KUDOS_PAGES.widget,
    base: 'authURL',
    what: 'payment widget: confirm',
  },
  widgetReference: {
    method: 'GET',
    path: '/in/widget/reference',
    base: 'authURL',
    what: "the widget's parameters (the widget without a query redirects here)",
  },
  favicon: { method: 'GET', path: '/favicon.ico', base: 'authURL', what: "the emulator's icon (SVG)" },
  avatar: {
    method: 'GET',
    path: '/avatars/{user}.svg',
    base: 'authURL',
    what: 'signed avatar images (Expires, Signature)',
  },
  token: {
    method: 'POST',
    path: `${API_PREFIX}${KUDOS_API.token}`,
    base: 'baseURL',
    what: 'token endpoint: grant_type authorization_code or refresh_token',
    operation: 'token',
  },
  revoke: {
    method: 'POST',
    path: `${API_PREFIX}${KUDOS_API.revoke}`,
    base: 'baseURL',
    what: 'client revocation (RFC 7009 form: token, client_id, client_secret)',
    operation: 'revoke',
  },
  profile: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_API.profile}`,
    base: 'baseURL',
    what: 'profile operation, scope profile: user, displayName, avatar, wallet, cosmosWallet; email with scope email',
    operation: 'api',
  },
  userMin: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_API.user}`,
    base: 'baseURL',
    what: 'public short profile (no token, `public, max-age=30, stale-while-revalidate=86400`); `?type=payment` adds paymentRedirectWhiteList; unknown: 404 `Not Found`',
    operation: 'api',
  },
  userByAddress: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_API.userByAddress}`,
    base: 'baseURL',
    what: 'the same public short profile, found by chain wallet address (either spelling, lower-cased first); no address: 400 `Invalid address`; unknown: 404 `Not Found`',
    operation: 'api',
  },
  txById: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_API.transaction}`,
    base: 'baseURL',
    what: "transaction record (a notification's `tx` fields), no token; the hash as recorded (upper case), else 404 `Not Found`",
    operation: 'api',
  },
  txHistory: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_API.history}`,
    base: 'baseURL',
    what: "a user's transactions, newest first, at most 10 from `ts` (`?ts=&count=`); that user's token with `read`",
    operation: 'api',
  },
  me: {
    method: 'GET',
    path: '/api/v1/me',
    base: 'baseURL',
    what: 'demo operation, scope profile (email with email)',
    operation: 'api',
  },
  kudosInfo: {
    method: 'GET',
    path: '/api/v1/kudos/info',
    base: 'baseURL',
    what: 'demo operation, scope read:kudos.info',
    operation: 'api',
  },
  chainTx: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_CHAIN.lcd}${KUDOS_CHAIN.tx}`,
    base: 'baseURL',
    what: 'transaction lookup on the chain (Cosmos LCD): a GetTxResponse with transfer events (base64 in `tx_response.events`, plain in `logs`)',
    operation: 'confirm',
  },
  chainTxSearch: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_CHAIN.lcd}${KUDOS_CHAIN.txsByEvent}`,
    base: 'baseURL',
    what: "the chain's transaction search by event (`?events=transfer.recipient='ADDRESS'`, `order_by`), paged as the chain's own software (`page`, `limit`) or the indexer (`pagination.offset`, `pagination.limit`, `pagination.count_total`) answers",
    operation: 'confirm',
  },
  chainTxLegacy: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_CHAIN.lcd}${KUDOS_CHAIN.legacyTx}`,
    base: 'baseURL',
    what: 'legacy transaction lookup: 501 `Not Implemented`, as the chain since its v4 release',
    operation: 'confirm',
  },
  chainBalances: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_CHAIN.lcd}${KUDOS_CHAIN.balances}`,
    base: 'baseURL',
    what: "a wallet's bank balances: 10,000 tokens to start, then its payments",
  },
  chainDelegations: {
    method: 'GET',
    path: `${API_PREFIX}${KUDOS_CHAIN.lcd}${KUDOS_CHAIN.delegations}`,
    base: 'baseURL',
    what: "a wallet's staking delegations (none)",
  },
  adminState: {
    method: 'GET',
    path: '/_emulator/state',
    base: 'authURL',
    what: 'admin: clients, users, agents (wallets, webhooks), recent transactions and deliveries',
  },
  adminPay: {
    method: 'POST',
    path: '/_emulator/payments',
    base: 'authURL',
    what: 'admin: make a payment as the widget would ({ to, amount, from?, via?, fee?, status?, remarks?, state? })',
  },
  adminDeliveries: {
    method: 'GET',
    path: '/_emulator/deliveries',
    base: 'authURL',
    what: 'admin: every webhook delivery (time, agent, URL without secret, hash, status, answer, attempt)',
  },
  adminResend: {
    method: 'POST',
    path: '/_emulator/deliveries/{id}/resend',
    base: 'authURL',
    pattern: /^\/_emulator\/deliveries\/([^/]+)\/resend$/,
    what: "admin: send a delivery's notification again, as a redelivery",
  },
  adminClock: {
    method: 'POST',
    path: '/_emulator/clock/advance',
    base: 'authURL',
    what: 'admin: move the clock forward ({ advance: "90s" | "61m" | "1h" })',
  },
  adminUsers: {
    method: 'POST',
    path: '/_emulator/users',
    base: 'authURL',
    what: 'admin: add a user ({ id, password, displayName? })',
  },
  adminAgents: {
    method: 'POST',
    path: '/_emulator/agents',
    base: 'authURL',
    what: 'admin: add or change an agent ({ id, webhookURL?: URL | null, forwardTo?: URL | null, paymentRedirectURIs? })',
  },
  adminClients: {
    method: 'POST',
    path: '/_emulator/clients',
    base: 'authURL',
    what: 'admin: add a client ({ clientID, clientSecret, redirectURI })',
  },
} as const satisfies Record<string, EmulatorRoute>;

/** The path a route is shown with, relative to its base: `{baseURL}/oauth/access_token`. */
function shownPath(route: EmulatorRoute): string {
  const path = route.base === 'baseURL' ? route.path.slice(API_PREFIX.length) : route.path;
  return `{${route.base}}${path}`;
}

/** The route table as Markdown: what the READMEs show. */
export function routeTableMarkdown(): string {
  const rows = Object.values(ROUTES).map(
    (route: EmulatorRoute) => `| \`${route.method} ${shownPath(route)}\` | ${route.what} |`,
  );
  return ['| route | what |', '|---|---|', ...rows].join('\n');
}
