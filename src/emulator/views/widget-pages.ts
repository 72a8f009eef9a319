import { escapeHtml, hiddenFields, layout } from './layout.js';

/** What the payment widget asks the payer to confirm. */
export interface PaymentSummary {
  payer: string;
  to: string;
  amount: string;
  via: string | undefined;
  fee: string | undefined;
  remarks: string | undefined;
}

/** The payment confirmation page of the widget. */
export function widgetPage(summary: PaymentSummary, fields: Record<string, string | undefined>): string {
  const row = (label: string, id: string, value: string | undefined) =>
    value === undefined ? '' : `<tr><th>${label}</th><td id="${id}">${escapeHtml(value)}</td></tr>`;
  return layout(
    'Confirm payment',
    `<h1>Confirm payment</h1><table>
${row('From', 'pay-from', summary.payer)}${row('To', 'pay-to', summary.to)}${row('Amount', 'pay-amount', `${summary.amount} KUDOS`)}
${row('Via agent', 'pay-via', summary.via)}${row('Agent fee', 'pay-fee', summary.fee === undefined ? undefined : `${summary.fee} KUDOS`)}
${row('Remarks', 'pay-remarks', summary.remarks)}</table>
<form method="post" action="/in/widget/pay">${hiddenFields(fields)}
<button class="primary" type="submit" name="decision" value="confirm">Confirm</button>
<button class="secondary" type="submit" name="decision" value="cancel">Cancel</button></form>`,
  );
}

/** The page shown after a payment when there is no redirect_uri. */
export function paymentResultPage(txHash: string, status: string): string {
  return layout(
    'Payment',
    `<h1>Payment ${escapeHtml(status)}</h1><p>Transaction <code id="tx-hash">${escapeHtml(txHash)}</code></p>`,
  );
}
