import { checkAddress, LEGACY_PREFIX, MAIN_PREFIX } from 'kudos-core/chain';
import { checkBearer, profileFields } from '../model/grants.js';
import { legacyWallet, walletAccount, walletAddress } from '../model/ids.js';
import type { AccessTokenClaims } from '../model/jwt.js';
import { grantCovers } from '../model/scopes.js';
import { transactionRecord } from '../model/tx-record.js';
import { type Ctx, safeDecode, sendApiCode, sendCode, sendJson, sendServiceError } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';

type Operation = (claims: AccessTokenClaims, ctx: Ctx) => unknown;

/** Most transactions in one page of a user's history (observed). */
const HISTORY_PAGE = 10;

/** Wraps an operation with the bearer check and the scope it needs (docs/kudos-service.md#errors). */
function protectedOperation(state: EmulatorState, scope: string, operation: Operation) {
  return (ctx: Ctx): void => {
    state.counters.apiCalls++;
    const check = checkBearer(state, ctx.req.headers.authorization, ctx.url.searchParams);
    if (!check.ok) return sendServiceError(ctx.res, check.code, true);
    if (!grantCovers(check.claims.scope, scope))
      return sendServiceError(ctx.res, 'INSUFFICIENT_PERMISSION', true);
    sendJson(ctx.res, 200, operation(check.claims, ctx));
  };
}

/**
 * The short public profile of a user or agent: every emulated account has a wallet; a civic user
 * carries the civic fields (observed: absent for others).
 */
function shortProfile(state: EmulatorState, id: string): Record<string, unknown> {
  // The chain wallet's legacy spelling as `cosmosWallet`, the main-prefix one as `kudosWallet`: the
  // same account (docs/kudos-service.md#wallet-addresses). `wallet` is the Ethereum-style address of
  // older accounts, never a chain address; a user registered lately has none of the three.
  const profile: Record<string, unknown> = { ...profileFields(state, id) };
  if (state.hasWallet(id)) {
    profile.wallet = legacyWallet(id);
    profile.cosmosWallet = walletAddress(id, LEGACY_PREFIX);
    profile.kudosWallet = walletAddress(id, MAIN_PREFIX);
  }
  const user = state.users.get(id);
  if (user?.civicLiker) {
    if (user.civicLiker === 'trial') profile.isCivicLikerTrial = true;
    else profile.isSubscribedCivicLiker = true;
    profile.civicLikerSince = user.civicLikerSince;
  }
  return profile;
}

/** What a public lookup answers for an unknown id, address or hash (observed): 404, `Not Found` as text. */
function notFound(ctx: Ctx): void {
  sendCode(ctx.res, 404, 'Not Found');
}

/** A public profile answer: cached by browsers and proxies for 30 s, then served stale for a day while revalidated (observed since 2024), unlike token-checked routes. */
function sendPublicProfile(state: EmulatorState, ctx: Ctx, id: string): void {
  const profile = shortProfile(state, id);
  if (ctx.url.searchParams.get('type') === 'payment') {
    // On the service an agent is a user with one whitelist; the emulator keeps agents apart.
    const lists = [
      state.agents.get(id)?.paymentRedirectURIs ?? [],
      state.users.get(id)?.paymentRedirectURIs ?? [],
    ];
    profile.paymentRedirectWhiteList = [...new Set(lists.flat())];
  }
  ctx.res.setHeader('cache-control', 'public, max-age=30, stale-while-revalidate=86400');
  ctx.res.removeHeader('pragma');
  ctx.res.removeHeader('expires');
  sendJson(ctx.res, 200, profile);
}

/** `GET {baseURL}/users/id/{id}/min`: public, no e-mail; `?type=payment` adds the payment redirect whitelist. */
function userMin(state: EmulatorState, ctx: Ctx): void {
  const id = safeDecode(ctx.params[0] ?? '') ?? '';
  if (!state.users.has(id) && !state.agents.has(id)) return notFound(ctx);
  sendPublicProfile(state, ctx, id);
}

/** `GET {baseURL}/users/addr/{address}/min`: the same, found by the wallet address. */
function userByAddress(state: EmulatorState, ctx: Ctx): void {
  // A bech32 address is read lower-cased; a string that is no address is refused (observed).
  const address = (safeDecode(ctx.params[0] ?? '') ?? '').toLowerCase();
  const read = checkAddress(address);
  if (!read.ok) return sendCode(ctx.res, 400, 'Invalid address');
  // Either spelling of the account finds it.
  const id = [...state.users.keys(), ...state.agents.keys()].find(
    (known) => state.hasWallet(known) && walletAccount(known) === read.account,
  );
  if (id === undefined) return notFound(ctx);
  sendPublicProfile(state, ctx, id);
}

/** `GET {baseURL}/tx/id/{hash}`: the transaction record, no token; the hash exactly as recorded (observed). */
function txById(state: EmulatorState, ctx: Ctx): void {
  const tx = state.transactions.get(safeDecode(ctx.params[0] ?? '') ?? '');
  if (!tx) return notFound(ctx);
  sendJson(ctx.res, 200, transactionRecord(tx, tx.status, state.options.multiSendAmounts));
}

/**
 * `GET {baseURL}/tx/history/user/{id}?ts=&count=`: that user's transactions (sent and received),
 * newest first, from `ts` (default now) back, at most 10 (`count` above 10 or missing: 10). Only
 * that user's token with `read`; anyone else 401 `LOGIN_NEEDED` (observed).
 */
function txHistory(state: EmulatorState, ctx: Ctx): void {
  state.counters.apiCalls++;
  const id = safeDecode(ctx.params[0] ?? '') ?? '';
  const check = checkBearer(state, ctx.req.headers.authorization, ctx.url.searchParams);
  if (!check.ok) return sendServiceError(ctx.res, check.code, true);
  if (check.claims.user !== id || !grantCovers(check.claims.scope, 'read')) {
    return sendServiceError(ctx.res, 'LOGIN_NEEDED', true);
  }
  const ts = ctx.url.searchParams.get('ts');
  const from = ts === null || ts === '' ? state.clock.now() : Number(ts);
  if (!Number.isFinite(from)) return sendApiCode(ctx.res, 400, 'BAD_REQUEST');
  const asked = Number(ctx.url.searchParams.get('count'));
  const count = Number.isInteger(asked) && asked >= 1 && asked <= HISTORY_PAGE ? asked : HISTORY_PAGE;
  const mode = state.options.multiSendAmounts;
  sendJson(
    ctx.res,
    200,
    // History records carry `id`, the transaction hash (observed).
    state
      .userTransactions(id, from, count)
      .map((tx) => ({ id: tx.txHash, ...transactionRecord(tx, tx.status, mode) })),
  );
}

/**
 * The API: the operations the service has (docs/kudos-service.md#authenticated-api and
 * #transactions), and two demo operations under `/v1/` for tests and the example.
 */
export function apiRoutes(router: Router, state: EmulatorState): void {
  router.on(
    ROUTES.profile,
    protectedOperation(state, 'profile', (claims) => {
      const profile = shortProfile(state, claims.user);
      const email = state.users.get(claims.user)?.email;
      if (grantCovers(claims.scope, 'email') && email) profile.email = email;
      return profile;
    }),
  );
  router.on(ROUTES.userMin, (ctx) => userMin(state, ctx));
  router.on(ROUTES.userByAddress, (ctx) => userByAddress(state, ctx));
  router.on(ROUTES.txById, (ctx) => txById(state, ctx));
  router.on(ROUTES.txHistory, (ctx) => txHistory(state, ctx));
  router.on(
    ROUTES.me,
    protectedOperation(state, 'profile', (claims) => {
      const user = state.users.get(claims.user);
      const info: Record<string, unknown> = {
        user: claims.user,
        displayName: user?.displayName ?? claims.user,
      };
      if (grantCovers(claims.scope, 'email') && user?.email) info.email = user.email;
      info.scope = claims.scope;
      return info;
    }),
  );
  router.on(
    ROUTES.kudosInfo,
    protectedOperation(state, 'read:kudos.info', (claims) => ({
      user: claims.user,
      givenTo: [...state.users.keys()].filter((id) => id !== claims.user).slice(0, 5),
      suggestions: [{ title: 'Welcome to Kudos', author: 'kudos-team' }],
    })),
  );
}
