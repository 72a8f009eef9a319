import { randomBytes } from 'node:crypto';
import { WIDGET_PARAMS } from 'kudos-core/chain';
import { sameSecret } from '../checks.js';
import {
  balanceRefusal,
  chainRefusal,
  checkPayment,
  type EmulatorTransaction,
  type PaymentRefusal,
  type PaymentRequest,
  selfPayment,
} from '../model/payments.js';
import { type Ctx, field, readForm, redirect, sendHtml, withQuery } from '../server/http.js';
import { ROUTES } from '../server/route-table.js';
import type { Router } from '../server/router.js';
import { currentSession } from '../server/sessions.js';
import type { EmulatorState } from '../state.js';
import { errorPage } from '../views/layout.js';
import {
  METADATA_SWITCH,
  metadataNotPostedPage,
  openerResultPage,
  type PopupResult,
  paymentResultPage,
  transactionFailedPage,
  widgetPage,
  widgetReferencePage,
} from '../views/widget-pages.js';

/** Starts a payment; provided by the emulator so that tests can force outcomes. */
type Pay = (request: PaymentRequest, metadataPosted: boolean | undefined) => EmulatorTransaction;

/** A refused payment: an error page with the code, never a redirect. */
function refusal(ctx: Ctx, refused: PaymentRefusal): void {
  sendHtml(ctx.res, refused.status, errorPage('Invalid payment', refused.message, refused.code));
}

function showWidget(state: EmulatorState, ctx: Ctx): void {
  // No query at all: the widget's reference (observed: the service redirects to its documentation).
  if ([...ctx.url.searchParams.keys()].length === 0) return redirect(ctx.res, ROUTES.widgetReference.path);
  // The parameters first, signed in or not (observed).
  const checked = checkPayment(state, ctx.url.searchParams);
  if (!checked.ok) return refusal(ctx, checked);
  const session = currentSession(state, ctx);
  if (!session)
    return redirect(ctx.res, `/in/login?next=${encodeURIComponent(ctx.url.pathname + ctx.url.search)}`);
  const fields: Record<string, string | undefined> = { csrf: session.csrf };
  for (const name of WIDGET_PARAMS) fields[name] = ctx.url.searchParams.get(name) ?? undefined;
  sendHtml(ctx.res, 200, widgetPage(session.userId, checked.request, fields));
}

async function confirm(state: EmulatorState, ctx: Ctx, pay: Pay): Promise<void> {
  const form = await readForm(ctx.req);
  const session = currentSession(state, ctx);
  if (!form || !session || !sameSecret(field(form, 'csrf') ?? '', session.csrf)) {
    return sendHtml(ctx.res, 403, errorPage('Session expired', 'Log in again and retry the payment.'));
  }
  const checked = checkPayment(state, form);
  if (!checked.ok) return refusal(ctx, checked);
  // There is no cancel button (observed): the form only confirms.
  if (field(form, 'decision') !== 'confirm') {
    return sendHtml(ctx.res, 400, errorPage('Invalid payment', 'Confirm the payment, or close the page.'));
  }
  // Paying yourself is refused here, with no error code on the page (observed).
  const payer = selfPayment(checked.request, session.userId);
  if (!payer.ok) return sendHtml(ctx.res, 400, errorPage('Invalid payment', payer.message));
  const { request } = payer;
  // The chain refuses a memo over 256 bytes when the transaction is submitted: nothing is recorded.
  const refused = chainRefusal(request) ?? balanceRefusal(state, request);
  if (refused) return refusal(ctx, refused);
  const tx = pay(request, field(form, METADATA_SWITCH) === '1' ? false : undefined);
  if (request.blocking) await tx.settled; // blocking: wait for confirmation before redirecting
  // Only once the payer's browser posted the metadata does the widget go back (observed).
  if (tx.metadataPosted === false) return sendHtml(ctx.res, 200, metadataNotPostedPage(tx.txHash));
  // With blocking, a transaction that failed on the chain goes back nowhere (observed).
  if (request.blocking && tx.status !== 'success') {
    return sendHtml(ctx.res, 200, transactionFailedPage(tx.txHash, tx.status));
  }
  if (request.opener) {
    // Observed: the result goes to the page that opened the widget, and nothing redirects.
    const target = request.redirectURI === undefined ? undefined : new URL(request.redirectURI).origin;
    const data: PopupResult = { tx_hash: tx.txHash };
    // `state` as the link gave it, when non-empty; `remarks` is the memo as recorded, the default
    // (`kudos pay` + ` via AGENT`) included, left out only when the link gave it empty (observed).
    if (request.given.state) data.state = request.given.state;
    if (request.remarks) data.remarks = request.remarks;
    if (request.blocking) data.success = true; // a failure went back nowhere (above)
    const nonce = randomBytes(16).toString('base64');
    return sendHtml(ctx.res, 200, openerResultPage(data, target, nonce), nonce);
  }
  if (!request.redirectURI) return sendHtml(ctx.res, 200, paymentResultPage(tx.txHash, tx.status));
  const values: Record<string, string | undefined> = {
    tx_hash: tx.txHash,
    state: request.state,
    // An empty memo is not added (observed).
    remarks: request.remarks === '' ? undefined : request.remarks,
  };
  // `success` only when blocking was set; the redirect never carries `error` (observed).
  if (request.blocking) values.success = 'true';
  redirect(ctx.res, withQuery(request.redirectURI, values));
}

/** The payment widget `{authURL}/in/widget/pay` (docs/kudos-service.md#payment-widget). */
export function widgetRoutes(router: Router, state: EmulatorState, pay: Pay): void {
  router.on(ROUTES.widget, (ctx) => showWidget(state, ctx));
  router.on(ROUTES.widgetReference, (ctx) => sendHtml(ctx.res, 200, widgetReferencePage()));
  router.on(ROUTES.widgetConfirm, (ctx) => confirm(state, ctx, pay));
}
