import { hasScope } from '../../scopes.js';
import { checkBearer } from '../grants.js';
import { type Ctx, sendCode, sendJson } from '../http.js';
import type { AccessTokenClaims } from '../jwt.js';
import type { Router } from '../router.js';
import type { EmulatorState } from '../state.js';

type Operation = (claims: AccessTokenClaims) => unknown;

/** Wraps an operation with the bearer check and the scope it needs (facts.md errors and hierarchy). */
function protectedOperation(state: EmulatorState, scope: string, operation: Operation) {
  return (ctx: Ctx): void => {
    state.counters.apiCalls++;
    const check = checkBearer(state, ctx.req.headers.authorization);
    if (!check.ok) return sendCode(ctx.res, check.status, check.code);
    if (!hasScope(check.claims.scope, scope)) return sendCode(ctx.res, 403, 'INSUFFICIENT_PERMISSION');
    sendJson(ctx.res, 200, operation(check.claims));
  };
}

/** A small authenticated API for demos and tests (the real operations are not shown in the spec). */
export function apiRoutes(router: Router, state: EmulatorState): void {
  router.on(
    'GET',
    '/api/v1/me',
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
    'GET',
    '/api/v1/kudos/info',
    protectedOperation(state, 'read:kudos.info', (claims) => ({
      user: claims.user,
      givenTo: [...state.users.keys()].filter((id) => id !== claims.user).slice(0, 5),
      suggestions: [{ title: 'Welcome to Kudos', author: 'kudos-team' }],
    })),
  );
}
