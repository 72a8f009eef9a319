// New orders and their widget links.
import { checkPositive, isRecord, KUDOS_PAGES } from 'kudos-core';
import { tokensToUnits } from 'kudos-core/chain';
import type { KudosOrderInput, KudosOrderLink } from './api.js';
import type { Ledger } from './ledger.js';
import { isOrderData, type KudosOrder } from './records.js';
import { memoFor, newReference } from './reference.js';
import { nonEmpty, type PaymentsSettings, tokens } from './settings.js';

function httpURL(value: unknown, what: string): string {
  const ok = typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
  if (!ok) throw new TypeError(`${what} must be an absolute http(s) URL`);
  return value;
}

/**
 * The order `input` asks for, checked in the order of its fields (a mistake is a `TypeError` naming
 * the field), open from now, and where the widget sends the payer back.
 */
function newOrder(
  input: KudosOrderInput,
  settings: PaymentsSettings,
): { order: KudosOrder; redirectURI: string | undefined } {
  if (!isRecord(input))
    throw new TypeError('createOrder() takes an object: { amount, user?, redirectURI?, ... }');
  const amount = tokens(input.amount, 'createOrder() "amount"');
  const user = input.user === undefined ? null : nonEmpty(input.user, 'createOrder() "user"');
  const redirectURI =
    input.redirectURI === undefined ? undefined : httpURL(input.redirectURI, 'createOrder() "redirectURI"');
  if (input.popup && redirectURI === undefined) {
    throw new TypeError(
      'createOrder() "redirectURI" is required with "popup": its origin is where the widget posts the result',
    );
  }
  const expiresInMs = checkPositive(input.expiresInMs ?? settings.orderTtlMs, 'createOrder() "expiresInMs"');
  const data: unknown = input.data ?? {};
  if (!isOrderData(data)) {
    throw new TypeError('createOrder() "data" must be an object of strings');
  }
  const createdAt = settings.now();
  const order: KudosOrder = {
    reference: newReference(),
    amount,
    units: tokensToUnits(amount),
    user,
    status: 'open',
    createdAt,
    expiresAt: createdAt + expiresInMs,
    data: { ...data },
    payment: null,
  };
  return { order, redirectURI };
}

/** `createOrder()`: saves a new open order and answers it with its widget link. */
export function orderMaker(settings: PaymentsSettings, ledger: Ledger) {
  return async (input: KudosOrderInput): Promise<KudosOrderLink> => {
    const { order, redirectURI } = newOrder(input, settings);
    await ledger.createOrder(order);
    const link = new URL(`${settings.authURL}${KUDOS_PAGES.widget}`);
    const params: Record<string, string> = {
      to: settings.shopUser,
      amount: order.amount,
      via: settings.agent,
    };
    if (settings.fee !== undefined) params.fee = settings.fee;
    params.remarks = memoFor(order.reference, input.memo);
    params.state = order.reference;
    if (redirectURI !== undefined) params.redirect_uri = redirectURI;
    if (input.blocking ?? redirectURI !== undefined) params.blocking = '1';
    if (input.popup) params.opener = '1';
    link.search = new URLSearchParams(params).toString();
    return { order, url: link.toString() };
  };
}
