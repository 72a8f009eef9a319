import { hasScope } from '../../scopes.js';
import { avatarURL, checkBearer } from '../grants.js';
import { type Ctx, sendApiCode, sendJson } from '../http.js';
import { walletAddress } from '../ids.js';
import type { AccessTokenClaims } from '../jwt.js';
import { ROUTES } from '../route-table.js';
import type { Router } from '../router.js';
import type { EmulatorState } from '../state.js';

type Operation = (claims: AccessTokenClaims) => unknown;

/** Wraps an operation with the bearer check and the scope it needs (docs/kudos-service.md#errors). */
function protectedOperation(state: EmulatorState, scope: string, operation: Operation) {
  return (ctx: Ctx): void => {
    state.counters.apiCalls++;
    const check = checkBearer(state, ctx.req.headers.authorization, ctx.url.searchParams);
    if (!check.ok) return sendApiCode(ctx.res, check.status, check.code);
    if (!hasScope(check.claims.scope, scope)) return sendApiCode(ctx.res, 403, 'INSUFFICIENT_PERMISSION');
    sendJson(ctx.res, 200, operation(check.claims));
  };
}

/**
 * The authenticated API: the profile operation the service has (docs/kudos-service.md#authenticated-api),
 * and two demo operations under `/v1/` for tests and the example.
 */
export function apiRoutes(router: Router, state: EmulatorState): void {
  router.on(
    ROUTES.profile,
    protectedOperation(state, 'profile', (claims) => {
      const user = state.users.get(claims.user);
      // The short public profile, with the user's wallet; email only with the email scope.
      const wallet = walletAddress(claims.user);
      const profile: Record<string, unknown> = {
        user: claims.user,
        displayName: user?.displayName ?? claims.user,
        avatar: avatarURL(state, claims.user),
        wallet,
        cosmosWallet: wallet,
      };
      if (hasScope(claims.scope, 'email') && user?.email) profile.email = user.email;
      return profile;
    }),
  );
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
