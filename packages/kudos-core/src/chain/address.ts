import { bech32 } from '@scure/base';

/**
 * Wallet addresses (docs/kudos-service.md#wallet-addresses). An account is 20 bytes with two bech32
 * spellings that the chain takes for the same account: the main prefix (`kudos1…`), which the widget
 * pays since 2022, and the legacy `cosmos1…`, which older records and a user's `cosmosWallet` carry.
 * So two addresses are compared as accounts (their bytes), never as strings. bech32 itself is
 * @scure/base's (audited), not written here.
 */

/** The chain's main address prefix: what the widget pays since 2022 (observed). */
export const MAIN_PREFIX = 'kudos';
/** The legacy prefix of the same accounts: older records, a user's `cosmosWallet` (observed). */
export const LEGACY_PREFIX = 'cosmos';
/** The prefixes that spell an account of the chain. */
export type AddressPrefix = typeof MAIN_PREFIX | typeof LEGACY_PREFIX;

const PREFIXES: readonly string[] = [MAIN_PREFIX, LEGACY_PREFIX];
/**
 * An account's address is 20 bytes (a key's), or 32 (a module's or a contract's account, which the
 * chain's SDK also spells in bech32): either is the same account in both spellings.
 */
const ACCOUNT_BYTES: readonly number[] = [20, 32];
/** Longest bech32 string read (a bech32 string is at most 90 characters by its own rules). */
const MAX_LENGTH = 90;

/** An address read: its account (its 20 or 32 bytes, as lower-case hex) and the prefix it was spelled with. */
interface ReadAddress {
  account: string;
  prefix: AddressPrefix;
}

/** An address read, or what is wrong with it, in words that can follow the option's name. */
type AddressCheck = ({ ok: true } & ReadAddress) | { ok: false; problem: string };

function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Reads a wallet address: a bech32 string with a valid checksum, the `kudos` or `cosmos` prefix and
 * a 20-byte or 32-byte account. Pure; never throws.
 */
export function checkAddress(value: unknown): AddressCheck {
  if (typeof value !== 'string' || value === '') return { ok: false, problem: 'is not a string' };
  if (value.length > MAX_LENGTH) return { ok: false, problem: 'is longer than a bech32 address can be' };
  if (value !== value.toLowerCase() && value !== value.toUpperCase()) {
    return { ok: false, problem: 'mixes upper and lower case, which bech32 does not allow' };
  }
  const lower = value.toLowerCase();
  const separator = lower.lastIndexOf('1');
  const prefix = separator > 0 ? lower.slice(0, separator) : '';
  if (!PREFIXES.includes(prefix)) {
    return { ok: false, problem: `must start with "${MAIN_PREFIX}1" or "${LEGACY_PREFIX}1"` };
  }
  let words: number[];
  try {
    words = bech32.decode(lower as `${string}1${string}`, MAX_LENGTH).words;
  } catch {
    return { ok: false, problem: 'has a wrong bech32 checksum or character (mistyped?)' };
  }
  const bytes = bech32.fromWordsUnsafe(words);
  if (bytes === undefined || !ACCOUNT_BYTES.includes(bytes.length)) {
    return { ok: false, problem: 'is not a 20-byte or 32-byte account address' };
  }
  return { ok: true, account: toHex(bytes), prefix: prefix as AddressPrefix };
}

/** Most addresses whose account is remembered: a shop sees its own and a few payers' again and again. */
const MAX_REMEMBERED = 1024;
const remembered = new Map<string, string>();

/**
 * What an address is compared by: its account (both spellings alike) when it is an address of the
 * chain, else the text itself (a record of another chain, or a test's made-up string, is then only
 * ever equal to itself). Remembered for the addresses seen last (decoding bech32 on every
 * notification would cost the receiver some of its throughput).
 */
export function accountKey(address: string): string {
  const known = remembered.get(address);
  if (known !== undefined) return known;
  const read = checkAddress(address);
  const key = read.ok ? read.account : `text:${address}`;
  if (remembered.size >= MAX_REMEMBERED) remembered.clear();
  remembered.set(address, key);
  return key;
}

/** An account's 20 or 32 bytes (40 or 64 hex characters) spelled with `prefix`. */
export function spellAddress(accountHex: string, prefix: AddressPrefix): string {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(accountHex)) {
    throw new TypeError('an account is 40 or 64 lower-case hex characters');
  }
  const bytes = Uint8Array.from(accountHex.match(/../g) ?? [], (pair) => Number.parseInt(pair, 16));
  return bech32.encode(prefix, bech32.toWords(bytes));
}
