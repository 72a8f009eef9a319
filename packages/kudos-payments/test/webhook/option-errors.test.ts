import { describe, expect, it } from 'vitest';
import { WALLETS } from '../../../../test/helpers/chain-answer.mjs';
import { kudosPayments, kudosReceiver, kudosWebhook, kudosWebhookFetch } from '../../src/index.js';

// An option error names the function the user called (regression: kudosPayments() said kudosWebhook).
const PAYMENTS = {
  secret: 'option-errors-secret-0123456789',
  authURL: 'http://127.0.0.1:4000',
  baseURL: 'http://127.0.0.1:4000/api',
  wallet: WALLETS.shop,
  shopUser: 'bobby',
  agent: 'shop-agent',
  onPaid: () => undefined,
};
const RECEIVER = { secret: 'option-errors-secret-0123456789', onNotification: () => undefined };

describe('option errors name the call', () => {
  it.each([
    ['leaseMs', { leaseMs: -1 }],
    ['handlerTimeoutMs', { handlerTimeoutMs: 0 }],
    ['bodyTimeoutMs', { bodyTimeoutMs: Number.NaN }],
    ['maxBodyBytes', { maxBodyBytes: -5 }],
    ['secret', { secret: 'short' }],
    // regression: a restURL that is no string crashed ("url.slice is not a function"), and a bad
    // restURL or denom was said in cosmosConfirmer's words
    ['restURL', { restURL: 5 }],
    ['restURL', { restURL: 'not a url' }],
    ['restURL', { restURL: 'http://user:pass@127.0.0.1:4000/lcd' }],
    ['denom', { denom: '' }],
    ['denom', { denom: 7 }],
    // a value that would fail only when first used (a delivery, an order) is refused when made
    ['store', { store: 5 }],
    ['store', { store: {} }],
    ['orders', { orders: { read: () => undefined } }],
    ['onException', { onException: 'log it' }],
    ['onError', { onError: {} }],
  ])('kudosPayments(): a bad "%s" is a TypeError naming kudosPayments', (name, bad) => {
    expect(() => kudosPayments({ ...PAYMENTS, ...bad } as never)).toThrow(
      new RegExp(`^kudosPayments option "${name}"`),
    );
  });

  it.each([
    ['kudosWebhook', (o: object) => kudosWebhook(o as never)],
    ['kudosWebhookFetch', (o: object) => kudosWebhookFetch(o as never)],
    ['kudosReceiver', (o: object) => kudosReceiver(o as never)],
  ])('%s names itself', (name, make) => {
    expect(() => make({ ...RECEIVER, leaseMs: -1 })).toThrow(new RegExp(`^${name} option "leaseMs"`));
    expect(() => make({ ...RECEIVER, now: 'soon' })).toThrow(new RegExp(`^${name} option "now"`));
    expect(() => make({ ...RECEIVER, confirm: true })).toThrow(new RegExp(`^${name} option "confirm"`));
    expect(() => make({ ...RECEIVER, store: new Map() })).toThrow(new RegExp(`^${name} option "store"`));
    expect(() => make({ secret: RECEIVER.secret })).toThrow(
      new RegExp(`^${name} requires an "onNotification"`),
    );
  });
});
