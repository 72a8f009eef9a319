import { UNITS_PER_TOKEN } from '../protocol/limits.js';

/**
 * The payment widget's link (docs/kudos-service.md#payment-widget): its parameters and the form of
 * its amounts, read by the emulator's widget and written by `kudosPayments()` for each order.
 */

/** Query parameters of the payment widget. */
export const WIDGET_PARAMS = [
  'to',
  'amount',
  'via',
  'fee',
  'remarks',
  'state',
  'redirect_uri',
  'blocking',
  'opener',
] as const;

/** Whole tokens as a decimal string: up to 12 digits, up to 9 decimals (the smallest unit is 10^-9). */
export const TOKEN_AMOUNT = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,9})?$/;

/** Longest memo (`remarks`) the service keeps, in UTF-16 code units (observed: longer ones are cut). */
export const MAX_REMARKS = 255;

/**
 * Longest memo the chain takes, in UTF-8 bytes (observed): a longer one is refused when the
 * transaction is submitted, so a link whose memo is longer can never be paid.
 */
export const MAX_MEMO_BYTES = 256;

/** A decimal token amount (matching {@link TOKEN_AMOUNT}) in the smallest unit, exact. */
export function tokensToUnits(tokens: string): bigint {
  const [whole = '0', fraction = ''] = tokens.split('.');
  return BigInt(whole) * UNITS_PER_TOKEN + BigInt(fraction.padEnd(9, '0'));
}
