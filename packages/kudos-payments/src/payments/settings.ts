// The payments API's options checked once, with their defaults: every part of it reads these.
import {
  chainRestURL,
  checkPositive,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_TIMEOUT_MS,
  hasCredentials,
  withoutTrailingSlashes,
} from 'kudos-core';
import { TOKEN_AMOUNT, tokensToUnits } from 'kudos-core/chain';
import { chainConfirmer, checkDenom, checkWallets } from '../core/confirm.js';
import { optionalFunction, type ReceiverSettings, receiverSettings } from '../options.js';
import type { KudosPaymentsOptions } from './api.js';
import type { KudosOrderStore } from './order-store.js';

/** Default time an order can be paid: 24 hours. */
const DEFAULT_ORDER_TTL_MS = 24 * 3600 * 1000;
/** How long an exception waits for `acknowledge()`: 30 days, a month's reconciliation of the shop's books. */
const DEFAULT_EXCEPTION_TTL_MS = 30 * 24 * 3600 * 1000;
/** Default most lookups the return page (`check()`) makes at once. */
const DEFAULT_MAX_CHECK_LOOKUPS = 32;
/** How long the return page remembers a hash the service does not know, or that pays the shop nothing. */
const DEFAULT_UNKNOWN_HASH_MS = 10_000;

/** Most exceptions (and paid orders not marked fulfilled) one reading lists. */
export const MAX_LISTED = 100_000;
/** A transaction hash as the service writes it (either case). */
export const HASH = /^[0-9A-Fa-f]{64}$/;

/** `value` unless it is no absolute URL without credentials (then a `TypeError` naming `name`). */
function absoluteURL(value: unknown, name: string): string {
  if (typeof value !== 'string' || !URL.canParse(value) || hasCredentials(value)) {
    throw new TypeError(`kudosPayments option "${name}" must be an absolute URL without credentials`);
  }
  return withoutTrailingSlashes(value);
}

/** The service's addresses: `authURL`, `baseURL`, and the chain's (`restURL`, else under `baseURL`). */
function addresses(options: KudosPaymentsOptions) {
  const baseURL = absoluteURL(options.baseURL, 'baseURL');
  return {
    authURL: absoluteURL(options.authURL, 'authURL'),
    baseURL,
    restURL: absoluteURL(chainRestURL(options.restURL, baseURL), 'restURL'),
  };
}

export function nonEmpty(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new TypeError(`${what} must be a non-empty string`);
  return value;
}

export function tokens(value: unknown, what: string, zero = false): string {
  if (typeof value !== 'string' || !TOKEN_AMOUNT.test(value) || (!zero && tokensToUnits(value) === 0n)) {
    throw new TypeError(`${what} must be whole tokens as a decimal string above 0, like "2" or "0.5"`);
  }
  return value;
}

/** The number options of the payments (the receiver's are the receiver's), each checked, with its default. */
function durations(options: KudosPaymentsOptions) {
  const positive = (name: keyof KudosPaymentsOptions, fallback: number, zero = false, whole = false) =>
    checkPositive(options[name] ?? fallback, `kudosPayments option "${name}"`, { zero, whole });
  return {
    orderTtlMs: positive('orderTtlMs', DEFAULT_ORDER_TTL_MS),
    timeoutMs: positive('timeoutMs', DEFAULT_TIMEOUT_MS),
    // null keeps exceptions until acknowledged.
    exceptionTtlMs:
      options.exceptionTtlMs === null ? null : positive('exceptionTtlMs', DEFAULT_EXCEPTION_TTL_MS),
    maxCheckLookups: positive('maxCheckLookups', DEFAULT_MAX_CHECK_LOOKUPS, false, true),
    unknownHashCacheMs: positive('unknownHashCacheMs', DEFAULT_UNKNOWN_HASH_MS, true),
  };
}

/** The amounts: the agent's `fee`, and `minExceptionAmount` in units. */
function amounts(options: KudosPaymentsOptions) {
  const amount = (name: 'fee' | 'minExceptionAmount') =>
    options[name] === undefined ? undefined : tokens(options[name], `kudosPayments option "${name}"`, true);
  const minException = amount('minExceptionAmount');
  return {
    fee: amount('fee'),
    minExceptionUnits: minException === undefined ? 0n : tokensToUnits(minException),
  };
}

/** The `orders` option: an order store (its `read()`, `write()` and `listed()`), or undefined for the default. */
function orderStore(orders: unknown): KudosOrderStore | undefined {
  if (orders === undefined) return undefined;
  const methods = orders as Partial<Record<'read' | 'write' | 'listed', unknown>> | null;
  if (
    typeof methods?.read !== 'function' ||
    typeof methods.write !== 'function' ||
    typeof methods.listed !== 'function'
  ) {
    throw new TypeError(
      'kudosPayments option "orders" must be an order store (with read(), write() and listed()): MemoryOrderStore, SqliteOrderStore, RedisOrderStore or your own',
    );
  }
  return orders as KudosOrderStore;
}

/**
 * The options of `kudosPayments()`, checked once (a mistake is a `TypeError` naming it), with
 * defaults. The receiver's own options are checked here too, in kudosPayments' words, and handed to
 * it as they are; the wallet and the chain go to the confirmer and `reconcileChain()` checked.
 */
export function paymentsSettings(options: KudosPaymentsOptions) {
  if (typeof options?.onPaid !== 'function')
    throw new TypeError('kudosPayments requires an "onPaid" function');
  const where = 'kudosPayments';
  const { authURL, baseURL, restURL } = addresses(options);
  const numbers = durations(options);
  const wallets = checkWallets(options.wallet, where);
  const denom = checkDenom(options.denom, where);
  /** How the return page and `reconcileChain()` read the chain (payers named under `baseURL`). */
  const chain = { lcd: restURL, baseURL, wallets, denom, timeoutMs: numbers.timeoutMs };
  // The wallet and the chain, checked, go to the confirmer as they are (cosmosConfirmer() would check again).
  const confirm = chainConfirmer({ ...chain, maxBytes: DEFAULT_MAX_RESPONSE_BYTES });
  // The receiver's own options. Its `denom` refusal stays off: a notification in another
  // denomination is decided (not paid), never refused for its shape.
  const receiver: ReceiverSettings = receiverSettings({ ...options, denom: undefined }, where);
  return {
    authURL,
    baseURL,
    restURL,
    /** The one denomination that counts as money. */
    denom,
    /** The shop's wallet(s) as accounts (either spelling). */
    wallets,
    /** The receiver's own options, checked: handed to it as they are. */
    receiverSettings: receiver,
    /** How long decided payments (and expired orders) are remembered: the receiver's dedupe TTL. */
    dedupeTtlMs: receiver.dedupeTtlMs,
    /** How notifications are confirmed on the chain. */
    confirm,
    chain,
    shopUser: nonEmpty(options.shopUser, 'kudosPayments option "shopUser" (the shop\'s Kudos user ID)'),
    agent: nonEmpty(options.agent, 'kudosPayments option "agent" (the agent\'s Kudos user ID)'),
    ...numbers,
    /** The app's order store; undefined: a MemoryOrderStore on the receiver's clock. */
    orders: orderStore(options.orders),
    ...amounts(options),
    /** After this long a paid order not marked `fulfilled` is no delivery's any more: its handler ended. */
    retellAfterMs: receiver.leaseMs + receiver.handlerTimeoutMs,
    /** Whether a notification's secret is checked: else its metadata is not trusted. */
    authenticated: receiver.secrets !== undefined,
    now: receiver.now,
    onException: optionalFunction(options.onException, 'onException', where),
  };
}

/** What every part of the payments API reads. */
export type PaymentsSettings = ReturnType<typeof paymentsSettings>;
