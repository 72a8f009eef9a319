import type { Ctx } from './http.js';
import type { EmulatorOperation } from './route-table.js';

// The emulator's `verbose` log: one line per operation it serves, named as passport-kudos's tracing
// channels name the same operation on the app's side (docs/observability.md), so that the two can
// be read side by side. Never a query string (an authorization request's state), a body or a header.

/** How a served request ended: `error` for a 4xx or 5xx answer. */
function outcomeOf(status: number): 'success' | 'error' {
  return status >= 400 ? 'error' : 'success';
}

/** One routed request: `passport-kudos:token outcome=success status=200 ms=3 POST /api/oauth/token`. */
export function operationLine(operation: EmulatorOperation, ctx: Ctx, ms: number): string {
  const status = ctx.res.statusCode;
  return `passport-kudos:${operation} outcome=${outcomeOf(status)} status=${status} ms=${Math.round(ms)} ${ctx.method} ${ctx.url.pathname}`;
}
