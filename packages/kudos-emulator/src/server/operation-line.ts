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

/** One delivery attempt of a notification, as the sender saw its answer. */
export function deliveryLine(delivery: {
  agentId: string;
  txHash: string;
  txStatus: string;
  attempt: number;
  responseStatus?: number | undefined;
  error?: string | undefined;
  ms: number;
}): string {
  const status = delivery.responseStatus;
  const answered = status === undefined ? `error=${delivery.error ?? 'failed'}` : `status=${status}`;
  const outcome = status !== undefined && status >= 200 && status < 300 ? 'delivered' : 'failed';
  return `passport-kudos:notification outcome=${outcome} ${answered} ms=${Math.round(delivery.ms)} agent=${delivery.agentId} tx=${delivery.txHash} txStatus=${delivery.txStatus} attempt=${delivery.attempt}`;
}
