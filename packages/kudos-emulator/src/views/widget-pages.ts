import type { WIDGET_PARAMS } from 'kudos-core/chain';
import type { PaymentParams } from '../model/payments.js';
import { escapeHtml, hiddenFields, layout } from './layout.js';

/**
 * The form field of the emulator's switch (not the service's): the payer's browser fails to post the
 * widget's metadata after the broadcast, as when a session expired or a tab closed.
 */
export const METADATA_SWITCH = 'emulator_metadata_not_posted';

/** The payment confirmation page of the widget: no cancel button, as the service's (observed). */
export function widgetPage(
  payer: string,
  request: PaymentParams,
  fields: Record<string, string | undefined>,
): string {
  const row = (label: string, id: string, value: string | undefined) =>
    value === undefined ? '' : `<tr><th>${label}</th><td id="${id}">${escapeHtml(value)}</td></tr>`;
  const receivers = request.to.map((id, i) => `${id}: ${request.amounts[i]} KUDOS`).join(', ');
  const single = request.to.length === 1;
  return layout(
    'Confirm payment',
    `<h1>Confirm payment</h1><table>
${row('From', 'pay-from', payer)}${row('To', 'pay-to', single ? request.to[0] : receivers)}${row('Amount', 'pay-amount', single ? `${request.amounts[0]} KUDOS` : undefined)}
${row('Via agent', 'pay-via', request.via)}${row('Agent fee', 'pay-fee', request.fee === undefined ? undefined : `${request.fee} KUDOS`)}
${row('Remarks', 'pay-remarks', request.remarks)}</table>
<form method="post" action="/in/widget/pay">${hiddenFields(fields)}
<p class="emulator-switch"><label><input type="checkbox" id="metadata-not-posted" name="${METADATA_SWITCH}" value="1">
Emulator: the browser fails to post the payment's metadata (the money moves; no redirect, no message, no notification)</label></p>
<button class="primary" type="submit" name="decision" value="confirm">Confirm</button></form>`,
  );
}

/**
 * The widget's error after the money moved but its metadata was never posted (observed: no redirect,
 * no message to the opener). The hash is shown, as a payer would find it in the wallet's history.
 */
export function metadataNotPostedPage(txHash: string): string {
  return layout(
    'Payment not completed',
    `<h1>Payment not completed</h1><p>Error code: <code id="error-code">METADATA_NOT_POSTED</code></p>
<p class="error" role="alert">The transaction was sent, but the payment's details could not be saved (the emulator
plays a browser whose request failed). You are not sent back to the shop.</p>
<p>Transaction <code id="tx-hash">${escapeHtml(txHash)}</code></p>`,
  );
}

/** The widget's error when a payment it waited for (`blocking`) failed on the chain (observed: no redirect). */
export function transactionFailedPage(txHash: string, status: string): string {
  return layout(
    'Payment failed',
    `<h1>Payment failed</h1><p>Error code: <code id="error-code">TX_${escapeHtml(status.toUpperCase())}</code></p>
<p class="error" role="alert">The transaction did not succeed on the chain (${escapeHtml(status)}). You are not sent back to the shop.</p>
<p>Transaction <code id="tx-hash">${escapeHtml(txHash)}</code></p>`,
  );
}

/** The page shown after a payment when there is no redirect_uri. */
export function paymentResultPage(txHash: string, status: string): string {
  return layout(
    'Payment',
    `<h1>Payment ${escapeHtml(status)}</h1><p>Transaction <code id="tx-hash">${escapeHtml(txHash)}</code></p>`,
  );
}

/** What the popup posts in `data` (observed): `tx_hash`, and the rest only when set. */
export interface PopupResult {
  tx_hash: string;
  state?: string;
  remarks?: string;
  error?: string;
  success?: boolean;
}

/**
 * The page of popup mode: it posts ONE message to `window.opener`, a JSON string
 * `{ action: 'TX_SUBMITTED', data }`, to the origin of `redirect_uri`, then closes itself (observed:
 * real openers `JSON.parse(event.data)`). Without a `redirect_uri` nothing is posted and the page
 * shows the transaction.
 */
export function openerResultPage(data: PopupResult, targetOrigin: string | undefined, nonce: string): string {
  const shown = `<h1>Payment submitted</h1><p>Transaction <code id="tx-hash">${escapeHtml(data.tx_hash)}</code></p>`;
  if (targetOrigin === undefined) return layout('Payment', shown);
  // The message string, as JSON in a script of its own type: nothing in it runs, and `<` cannot end
  // the element.
  const message = JSON.stringify(JSON.stringify({ action: 'TX_SUBMITTED', data })).replace(/</g, '\\u003c');
  return layout(
    'Payment',
    `${shown}
<script type="application/json" id="result">${message}</script>
<script nonce="${escapeHtml(nonce)}">
if (window.opener) window.opener.postMessage(JSON.parse(document.getElementById('result').textContent), ${JSON.stringify(targetOrigin)});
window.close();
</script>`,
  );
}

/** What each widget parameter means: every one of WIDGET_PARAMS (a missing one does not compile). */
const PARAMETERS: Record<(typeof WIDGET_PARAMS)[number], string> = {
  to: 'receiver user ID, or several, comma-separated (required)',
  amount: 'tokens as a decimal string, one per receiver (required)',
  via: 'the agent (a user ID) that gets the notification and the fee',
  fee: "extra tokens to the agent; '0' is none",
  remarks: "public memo; default 'kudos pay' (+ ' via AGENT'); given empty, it stays empty",
  state: 'passed back on the redirect (or in the popup message)',
  redirect_uri:
    "where the payer goes afterwards (on the agent's or receiver's whitelist); in popup mode, the message's target origin",
  blocking: 'wait for the chain before returning; adds success',
  opener: "any value but '0': popup mode, the result is posted to window.opener",
};

/** The widget's reference page. */
export function widgetReferencePage(): string {
  const rows = Object.entries(PARAMETERS).map(
    ([name, what]) => `<tr><th><code>${name}</code></th><td>${escapeHtml(what)}</td></tr>`,
  );
  return layout(
    'Payment widget',
    `<h1>Payment widget</h1><p><code>GET /in/widget/pay?to=USER&amp;amount=TOKENS&amp;...</code></p><table id="widget-parameters">${rows.join('')}</table>`,
  );
}
