import { createHash, randomBytes } from 'node:crypto';

/** An opaque URL-safe random string of 43 characters, like the original refresh tokens. */
export function opaqueToken(): string {
  return randomBytes(32).toString('base64url');
}

/** A transaction hash: 64 upper-case hex characters. */
export function txHash(): string {
  return randomBytes(32).toString('hex').toUpperCase();
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/**
 * A stable bech32-looking wallet address with the `cosmos1` prefix for a user ID
 * (38 data characters, as real addresses have; the checksum is not a real bech32 checksum).
 */
export function walletAddress(userId: string): string {
  const digest = createHash('sha256').update(`kudos-wallet:${userId}`).digest();
  let out = 'cosmos1';
  for (let i = 0; i < 38; i++) out += BECH32[(digest[i % digest.length] ?? 0) % 32];
  return out;
}
