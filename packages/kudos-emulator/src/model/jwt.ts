import { createHmac, timingSafeEqual } from 'node:crypto';
import { isObjectLike } from '../checks.js';

/** Claims of an access token as the original service issued them (docs/kudos-service.md#observed-values). */
export interface AccessTokenClaims {
  user: string;
  scope: string[];
  azp: string;
  iat: number;
  exp: number;
  aud: string;
  iss: string;
  jti: string;
}

const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');

function sign(input: string, secret: string): string {
  return createHmac('sha256', secret).update(input).digest('base64url');
}

/** Signs claims as an HS256 JWT. */
export function signJwt(claims: AccessTokenClaims, secret: string): string {
  const body = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${sign(body, secret)}`;
}

function isClaims(value: unknown): value is AccessTokenClaims {
  if (!isObjectLike(value)) return false;
  const c = value as Record<string, unknown>;
  return (
    typeof c.user === 'string' &&
    Array.isArray(c.scope) &&
    c.scope.every((s) => typeof s === 'string') &&
    typeof c.azp === 'string' &&
    typeof c.exp === 'number' &&
    typeof c.iat === 'number' &&
    typeof c.jti === 'string'
  );
}

/** Verifies an HS256 JWT's signature and shape; returns its claims, or undefined. Expiry is the caller's. */
export function verifyJwt(token: string, secret: string): AccessTokenClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== HEADER) return undefined;
  const [header, payload, signature] = parts as [string, string, string];
  const expected = Buffer.from(sign(`${header}.${payload}`, secret));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return isClaims(claims) ? claims : undefined;
  } catch {
    return undefined;
  }
}
