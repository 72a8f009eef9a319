import { hasScope } from '../../protocol/scopes.js';
import { checkBearer, profileFields } from '../grants.js';
import { type Ctx, safeDecode, sendApiCode, sendJson, sendServiceError } from '../http.js';
import { walletAddress } from '../ids.js';
import type { AccessTokenClaims } from '../jwt.js';
import { ROUTES } from '../route-table.js';
import type { Router } from '../router.js';
import type { EmulatorState } from '../state.js';
import { transactionRecord } from '../tx-record.js';

type Operation = (claims: AccessTokenClaims, ctx: Ctx) => unknown;

/** Most transactions in one page of a user's history (observed). */
const HISTORY_PAGE = 10;

/** Wraps an operation with the bearer check and the scope it needs (docs/kudos-service.md#errors). */
function protectedOperation(state: EmulatorState, scope: string, operation: Operation) {
  return (ctx: Ctx): void => {
    state.counters.apiCalls++;
    const check = checkBearer(state, ctx.req.headers.authorization, ctx.url.searchParams);
    if (!check.ok) return sendServiceError(ctx.res, check.code, true);
    if (!hasScope(check.claims.scope, scope))
      return sendServiceError(ctx.res, 'INSUFFICIENT_PERMISSION', true);
    sendJson(ctx.res, 200, operation(check.claims, ctx));
  };
}

/** The short public profile of a user or agent: every emulated account has a wallet. */
function shortProfile(state: EmulatorState, id: string): Record<string, unknown> {
  const wallet = walletAddress(id);
  return {
    ...profileFields(state, id),
    wallet,
    cosmosWallet: wallet,
  };
}

/** `GET {base_url}/users/id/{id}/min`: public, no e-mail; `?type=payment` adds the payment redirect whitelist. */
function userMin(state: EmulatorState, ctx: Ctx): void {
  const id = safeDecode(ctx.params[0] ?? '') ?? '';
  const user = state.users.get(id);
  const agent = state.agents.get(id);
  if (!user && !agent) return sendApiCode(ctx.res, 404, 'USER_NOT_FOUND'); // the emulator's word: the service's 404 body is not known
  const profile = shortProfile(state, id);
  if (ctx.url.searchParams.get('type') === 'payment') {
    // On the service an agent is a user with one whitelist; the emulator keeps agents apart.
    const lists = [agent?.paymentRedirectURIs ?? [], user?.paymentRedirectURIs ?? []];
    profile.paymentRedirectWhiteList = [...new Set(lists.flat())];
  }
  sendJson(ctx.res, 200, profile);
}

/** `GET {base_url}/tx/id/{hash}`: the transaction record, no token; 404 when unknown. */
function txById(state: EmulatorState, ctx: Ctx): void {
  const hash = (safeDecode(ctx.params[0] ?? '') ?? '').toUpperCase();
  const tx = state.transactions.get(hash);
  if (!tx) return sendApiCode(ctx.res, 404, 'TX_NOT_FOUND'); // the emulator's word, as above
  sendJson(ctx.res, 200, transactionRecord(tx, tx.status, state.options.multiSendAmounts));
}

/**
 * `GET {base_url}/tx/history/user/{id}?ts=&count=`: that user's transactions (sent and received),
 * newest first, from `ts` (default now) back, at most 10 (`count` above 10 or missing: 10). Only
 * that user's token with `read`; anyone else 401 `LOGIN_NEEDED` (observed).
 */
function txHistory(state: EmulatorState, ctx: Ctx): void {
  state.counters.apiCalls++;
  const id = safeDecode(ctx.params[0] ?? '') ?? '';
  const check = checkBearer(state, ctx.req.headers.authorization, ctx.url.searchParams);
  if (!check.ok) return sendServiceError(ctx.res, check.code, true);
  if (check.claims.user !== id || !hasScope(check.claims.scope, 'read')) {
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
    state.userTransactions(id, from, count).map((tx) => transactionRecord(tx, tx.status, mode)),
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
      if (hasScope(claims.scope, 'email') && email) profile.email = email;
      return profile;
    }),
  );
  router.on(ROUTES.userMin, (ctx) => userMin(state, ctx));
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
      if (hasScope(claims.scope, 'email') && user?.email) info.email = user.email;
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
