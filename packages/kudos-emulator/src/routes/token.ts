import { authenticateClient } from '../model/clients.js';
import { issueTokens, revokeGrant, revokeToken } from '../model/grants.js';
import { type Ctx, field, readClientRequest, sendJson, sendServiceError } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';

function exchangeCode(state: EmulatorState, ctx: Ctx, form: URLSearchParams, clientID: string): void {
  state.counters.authorizationCodeGrants++;
  const code = field(form, 'code') ?? '';
  const record = state.codes.get(code);
  if (!record || record.clientID !== clientID) return sendServiceError(ctx.res, 'INVALID_GRANT');
  if (record.used) {
    // A replayed code ends what it issued (RFC 6749 section 4.1.2), unless a newer login replaced it.
    const stillLive = record.refreshToken && state.refreshTokens.has(record.refreshToken);
    if (stillLive) revokeGrant(state, record.clientID, record.userId);
    state.log(`replayed authorization code for ${record.userId} refused`);
    return sendServiceError(ctx.res, 'INVALID_GRANT');
  }
  if (state.clock.now() >= record.expiresAt || field(form, 'redirect_uri') !== record.redirectURI) {
    state.codes.delete(code);
    return sendServiceError(ctx.res, 'INVALID_GRANT');
  }
  record.used = true;
  const tokens = issueTokens(state, clientID, record.userId, record.scope);
  record.refreshToken = tokens.refresh_token;
  state.log(`issued tokens to ${clientID} for ${record.userId} (authorization_code)`);
  sendJson(ctx.res, 200, tokens);
}

function refresh(state: EmulatorState, ctx: Ctx, form: URLSearchParams, clientID: string): void {
  state.counters.refreshGrants++;
  const record = state.refreshTokens.get(field(form, 'refresh_token') ?? '');
  if (!record || record.clientID !== clientID) return sendServiceError(ctx.res, 'INVALID_GRANT');
  // Observed: the service keeps the refresh token ('reuse'); 'rotate' issues a new one (rule a ends the old).
  const keep = state.options.refreshTokens === 'reuse' ? field(form, 'refresh_token') : undefined;
  const tokens = issueTokens(state, clientID, record.userId, record.scope, keep);
  state.log(`issued tokens to ${clientID} for ${record.userId} (refresh_token)`);
  sendJson(ctx.res, 200, tokens);
}

/**
 * Reads a client request (form, JSON or query string, as observed) and authenticates the client; answers the error itself
 * (400 BODY_PARSE_FAILED, MISSING_CLIENT_INFO or INVALID_CLIENT_CRED) and returns undefined.
 */
async function clientRequest(
  state: EmulatorState,
  ctx: Ctx,
): Promise<{ form: URLSearchParams; clientID: string } | undefined> {
  const form = await readClientRequest(ctx.req, ctx.url.searchParams);
  const auth = form ? authenticateClient(state, form) : undefined;
  if (!form || !auth) {
    sendServiceError(ctx.res, 'BODY_PARSE_FAILED');
    return undefined;
  }
  if (!auth.ok) {
    sendServiceError(ctx.res, auth.code);
    return undefined;
  }
  return { form, clientID: auth.client.clientID };
}

async function tokenEndpoint(state: EmulatorState, ctx: Ctx): Promise<void> {
  state.counters.tokenRequests++;
  const request = await clientRequest(state, ctx);
  if (!request) return;
  const { form, clientID } = request;
  const grantType = field(form, 'grant_type');
  if (grantType === 'authorization_code') return exchangeCode(state, ctx, form, clientID);
  if (grantType === 'refresh_token') {
    ctx.operation = 'refresh';
    return refresh(state, ctx, form, clientID);
  }
  sendServiceError(ctx.res, 'UNSUPPORTED_GRANT_TYPE');
}

async function revocationEndpoint(state: EmulatorState, ctx: Ctx): Promise<void> {
  state.counters.revocations++;
  const request = await clientRequest(state, ctx);
  if (!request) return;
  const token = field(request.form, 'token');
  if (!token) return sendServiceError(ctx.res, 'MISSING_TOKEN');
  revokeToken(state, request.clientID, token);
  // RFC 7009 section 2.2: 200 whether or not the token was known.
  ctx.res.writeHead(200, { 'cache-control': 'no-store' });
  ctx.res.end();
}

/** Token endpoint (docs/kudos-service.md#token-exchange, with refresh) and client revocation endpoint (RFC 7009 form). */
export function tokenRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.token, (ctx) => tokenEndpoint(state, ctx));
  router.on(ROUTES.revoke, (ctx) => revocationEndpoint(state, ctx));
}
