// Who paid, as the service knows the payer: the chain names only the payer's wallet, and an order made
// for a user is paid only by that user (docs/payments.md). The service's public address lookup
// (`GET {baseURL}/users/addr/{address}/min`, kept in 2026) answers the user; a wallet linked to no
// account is `null`, as a record's `fromId` is.
import {
  answerError,
  apiPath,
  endpointGone,
  type HttpCall,
  isDocumentedNotFound,
  isOk,
  isRecord,
  jsonOf,
  KUDOS_API,
  request,
} from 'kudos-core';

/** Most addresses remembered: a shop's payers of a week, and then some. */
const MAX_REMEMBERED = 4096;

/** Largest answer read: a short profile is well under a kilobyte. */
const MAX_PROFILE_BYTES = 64 * 1024;

/**
 * The user ID of each payer's wallet, looked up once and remembered (an address's user does not
 * change), at most {@link MAX_REMEMBERED}: the one used longest ago is forgotten first.
 */
export class PayerIds {
  private readonly known = new Map<string, string | null>();

  /** The user whose wallet `address` is, or null when no account has it; rejects when the service cannot answer. */
  async idOf(baseURL: string, address: string, timeoutMs: number): Promise<string | null> {
    const key = address.toLowerCase();
    const remembered = this.known.get(key);
    if (remembered !== undefined) {
      // Used again: last in the map's order, the last to be forgotten.
      this.known.delete(key);
      this.known.set(key, remembered);
      return remembered;
    }
    const id = await lookUp(baseURL, key, timeoutMs);
    if (this.known.size >= MAX_REMEMBERED) {
      const [oldest] = this.known.keys();
      if (oldest !== undefined) this.known.delete(oldest);
    }
    this.known.set(key, id);
    return id;
  }

  /** How many payers are remembered. */
  get size(): number {
    return this.known.size;
  }
}

async function lookUp(baseURL: string, address: string, timeoutMs: number): Promise<string | null> {
  const call: HttpCall = {
    service: 'api',
    what: `GET ${KUDOS_API.userByAddress}`,
    url: baseURL + apiPath(KUDOS_API.userByAddress, { address }),
    headers: { accept: 'application/json' },
    timeoutMs,
    maxBytes: MAX_PROFILE_BYTES,
  };
  const answer = await request(call);
  // 400 `Invalid address` (no address the service reads) and its own 404: no account has it.
  if (answer.status === 400 && answer.body.trim() === 'Invalid address') return null;
  if (answer.status === 404) {
    if (isDocumentedNotFound(answer, 'service')) return null;
    throw endpointGone(call.url, answer, "the service's address lookup", 'The payer cannot be named.');
  }
  if (!isOk(answer.status)) throw answerError(answer, call);
  const profile = jsonOf(answer, call);
  return isRecord(profile) && typeof profile.user === 'string' && profile.user !== '' ? profile.user : null;
}
