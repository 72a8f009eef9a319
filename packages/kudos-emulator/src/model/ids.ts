import { createHash, randomBytes } from 'node:crypto';
import { type AddressPrefix, LEGACY_PREFIX, spellAddress } from 'kudos-core/chain';

/** An opaque URL-safe random string of 43 characters, like the original refresh tokens. */
export function opaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A transaction hash: 64 upper-case hex characters. */
export function txHash(): string {
  return randomBytes(32).toString('hex').toUpperCase();
}

/**
 * The account (20 bytes, as 40 hex characters) of a user's or agent's wallet: stable for an ID, so a
 * test shop can name its `wallet` before the emulator starts.
 */
export function walletAccount(userId: string): string {
  return createHash('sha256').update(`kudos-wallet:${userId}`).digest().subarray(0, 20).toString('hex');
}

/**
 * A user's or agent's wallet address: a real bech32 address (valid checksum) of its account, spelled
 * with the legacy `cosmos` prefix (a user record's `cosmosWallet`) unless `prefix` says `kudos`, the
 * main prefix the widget pays since 2022 (docs/kudos-service.md#wallet-addresses).
 */
export function walletAddress(userId: string, prefix: AddressPrefix = LEGACY_PREFIX): string {
  return spellAddress(walletAccount(userId), prefix);
}

/**
 * A user's `wallet` as the service's records have it: the legacy Ethereum-style address (`0x` and 40
 * hex digits), never a chain address (docs/kudos-service.md#public-lookups). Stable for an ID.
 */
export function legacyWallet(userId: string): string {
  return `0x${createHash('sha256').update(`kudos-legacy-wallet:${userId}`).digest().subarray(0, 20).toString('hex')}`;
}
