import { timingSafeEqual } from 'node:crypto';
import { avatarSignature } from '../model/grants.js';
import { type Ctx, safeDecode, sendCode } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import type { EmulatorState } from '../state.js';
import { escapeHtml, FAVICON_SVG } from '../views/layout.js';

const COLORS = ['#5b2bd6', '#d6452b', '#2b8ad6', '#2bb673', '#d6a12b'];

function avatarSvg(userId: string): string {
  const color = COLORS[[...userId].reduce((n, c) => n + c.charCodeAt(0), 0) % COLORS.length];
  const initial = escapeHtml(userId.slice(0, 1).toUpperCase());
  return `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="${color}"/><text x="48" y="62" font-size="44" font-family="sans-serif" text-anchor="middle" fill="#fff">${initial}</text></svg>`;
}

/**
 * The signed, time-limited avatar URL (docs/kudos-service.md#observed-values): `Expires` in epoch seconds and a `Signature`.
 * Expired or tampered URLs answer 403, as a storage service does.
 */
function serveAvatar(state: EmulatorState, ctx: Ctx): void {
  const userId = safeDecode(ctx.params[0] ?? '') ?? '';
  const expires = Number(ctx.url.searchParams.get('Expires'));
  const given = Buffer.from(ctx.url.searchParams.get('Signature') ?? '');
  const expected = Buffer.from(avatarSignature(state, userId, expires));
  const valid =
    Number.isInteger(expires) && given.length === expected.length && timingSafeEqual(given, expected);
  if (!valid || !state.users.has(userId)) return sendCode(ctx.res, 403, 'AccessDenied');
  if (state.clock.nowSeconds() >= expires) return sendCode(ctx.res, 403, 'Request has expired');
  ctx.res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'private, max-age=60' });
  ctx.res.end(avatarSvg(userId));
}

/** The avatar images the token responses point to, and the emulator's own icon. */
export function avatarRoutes(router: Router, state: EmulatorState): void {
  router.on(ROUTES.avatar, (ctx) => serveAvatar(state, ctx));
  router.on(ROUTES.favicon, (ctx) => {
    ctx.res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' });
    ctx.res.end(FAVICON_SVG);
  });
}
