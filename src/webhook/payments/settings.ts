// The payments API's options checked once, with their defaults: every part of it reads these.
import { checkPositive } from '../../base/numbers.js';
import { hasCredentials, withoutTrailingSlashes } from '../../base/url-path.js';
import { chainRestURL } from '../../protocol/endpoints.js';
import { DEFAULT_TIMEOUT_MS } from '../../protocol/limits.js';
import { TOKEN_AMOUNT, tokensToUnits } from '../../protocol/widget.js';
import { checkDenom, checkReceivers } from '../core/confirm.js';
import { DEFAULT_HANDLER_TIMEOUT_MS, DEFAULT_LEASE_MS } from '../options.js';
import type { KudosPaymentsOptions } from './api.js';

/** Default time an order can be paid: 24 hours. */
const DEFAULT_ORDER_TTL_MS = 24 * 3600 * 1000;
/** How long decided payments and expired orders are remembered: the dedupe TTL's default, 7 days. */
const DEFAULT_RETENTION_MS = 7 * 24 * 3600 * 1000;
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

function absoluteURL(value: unknown, name: string): string {
  if (typeof value !== 'string' || !URL.canParse(value) || hasCredentials(value)) {
    throw new TypeError(`kudosPayments option "${name}" must be an absolute URL without credentials`);
  }
  return withoutTrailingSlashes(value);
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

/** `exceptionTtlMs`: null keeps exceptions until acknowledged. */
function exceptionTtl(value: number | null | undefined): number | null {
  if (value === null) return null;
  return checkPositive(value ?? DEFAULT_EXCEPTION_TTL_MS, 'kudosPayments option "exceptionTtlMs"');
}

/** The options of `kudosPayments()`, checked (a mistake is a `TypeError` naming it), with defaults. */
export function paymentsSettings(options: KudosPaymentsOptions) {
  if (typeof options?.onPaid !== 'function')
    throw new TypeError('kudosPayments requires an "onPaid" function');
  const authURL = absoluteURL(options.authURL, 'authURL');
  const baseURL = absoluteURL(options.baseURL, 'baseURL');
  const to = nonEmpty(options.to, 'kudosPayments option "to" (the shop\'s Kudos user ID)');
  const agent = nonEmpty(options.agent, 'kudosPayments option "agent" (the agent\'s Kudos user ID)');
  const receivers = checkReceivers(options.receiver, 'kudosPayments');
  const option = (name: string) => `kudosPayments option "${name}"`;
  return {
    authURL,
    baseURL,
    /** The chain's REST interface: `restURL`, else the service's proxy under `baseURL`. */
    restURL: absoluteURL(chainRestURL(options.restURL, baseURL), 'restURL'),
    /** The one denomination that counts as money. */
    denom: checkDenom(options.denom, 'kudosPayments'),
    /** The shop's wallet(s) as accounts (either spelling). */
    receivers,
    to,
    agent,
    fee: options.fee === undefined ? undefined : tokens(options.fee, option('fee'), true),
    orderTtlMs: checkPositive(options.orderTtlMs ?? DEFAULT_ORDER_TTL_MS, option('orderTtlMs')),
    timeoutMs: checkPositive(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, option('timeoutMs')),
    retentionMs: checkPositive(options.dedupeTtlMs ?? DEFAULT_RETENTION_MS, option('dedupeTtlMs')),
    exceptionTtlMs: exceptionTtl(options.exceptionTtlMs),
    minExceptionUnits:
      options.minExceptionAmount === undefined
        ? 0n
        : tokensToUnits(tokens(options.minExceptionAmount, option('minExceptionAmount'), true)),
    maxCheckLookups: checkPositive(
      options.maxCheckLookups ?? DEFAULT_MAX_CHECK_LOOKUPS,
      option('maxCheckLookups'),
      {
        whole: true,
      },
    ),
    unknownHashCacheMs: checkPositive(
      options.unknownHashCacheMs ?? DEFAULT_UNKNOWN_HASH_MS,
      option('unknownHashCacheMs'),
      { zero: true },
    ),
    /** After this long a paid order not marked `fulfilled` is no delivery's any more: its handler ended. */
    retellAfterMs:
      (options.leaseMs ?? DEFAULT_LEASE_MS) + (options.handlerTimeoutMs ?? DEFAULT_HANDLER_TIMEOUT_MS),
    /** Whether a notification's secret is checked: else its metadata is not trusted. */
    authenticated: options.secret !== false,
    now: options.now ?? Date.now,
  };
}

/** What every part of the payments API reads. */
export type PaymentsSettings = ReturnType<typeof paymentsSettings>;
