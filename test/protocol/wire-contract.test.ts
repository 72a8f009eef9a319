import { DEMO_CLIENT, type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUDOS_ERROR_CODES } from '../../packages/kudos-core/src/base/error-codes.js';
import { TX_STATUSES } from '../../packages/kudos-core/src/chain/transaction.js';
import { KUDOS_API, KUDOS_CHAIN, KUDOS_PAGES } from '../../packages/kudos-core/src/protocol/endpoints.js';
import { profileFromResponse } from '../../packages/kudos-core/src/protocol/profile.js';
import { readServiceError, SERVICE_ERRORS } from '../../packages/kudos-core/src/protocol/service-errors.js';
import {
  PROFILE_FIELDS,
  validateTokenResponse,
} from '../../packages/kudos-core/src/protocol/token-response.js';
import { notificationBody } from '../../packages/kudos-emulator/src/model/tx-record.js';
import { API_PREFIX, ROUTES } from '../../packages/kudos-emulator/src/server/route-table.js';
import { parseKudosNotification } from '../../packages/kudos-payments/src/index.js';
import { PAYMENT_USERS } from '../helpers/emulator-user.js';

// The emulator and the library share one wire contract (src/protocol/). These tests are made from
// that contract, not from a list of their own: a field added to it is checked here without a new
// test, and a shape the emulator can send that the library would refuse fails.
describe('the wire contract, checked from both ends', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      agents: [{ id: 'shop-agent' }],
      paymentDelayMs: 5,
    });
  });
  afterAll(() => kudos.close());

  it('token response: the emulator sends exactly the contract, and every profile field reaches the profile', async () => {
    const { code, redirectURL } = kudos.authorize({ user: 'alice' });
    const res = await fetch(kudos.tokenURL, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: new URL(redirectURL).origin + new URL(redirectURL).pathname,
        client_id: DEMO_CLIENT.clientID,
        client_secret: DEMO_CLIENT.clientSecret,
      }),
    });
    const sent: unknown = await res.json();
    expect(Object.keys(sent as object).sort()).toEqual(
      ['user', ...PROFILE_FIELDS, 'access_token', 'refresh_token'].sort(),
    );
    const profile = profileFromResponse(validateTokenResponse(sent));
    for (const field of PROFILE_FIELDS) {
      expect(profile._json[field], field).toBe((sent as Record<string, unknown>)[field]);
    }
    expect(profile.id).toBe('alice');
  });

  const payments = [
    ['one recipient (MsgSend)', { from: 'alice', to: 'bobby', amount: '1' }],
    ['two receivers (MsgMultiSend)', { from: 'alice', to: ['bobby', 'shop-agent'], amount: ['1', '0.5'] }],
    ['an agent fee', { from: 'alice', to: 'bobby', amount: '2', via: 'shop-agent', fee: '0.25' }],
  ] as const;

  describe.each(payments)('notification of %s', (_, payment) => {
    it.each(
      TX_STATUSES.flatMap((status) =>
        (['total', 'per-output'] as const).map((amounts) => [status, amounts] as const),
      ),
    )('status %s, amounts %s: the receiver reads every field the emulator sends', (status, amounts) => {
      const tx = kudos.pay({ ...payment, state: 'order-7', remarks: 'thanks' });
      const body = notificationBody(tx, status, amounts);
      const read = parseKudosNotification(JSON.parse(JSON.stringify(body)));
      expect(read.tx.status).toBe(status);
      expect(read.tx.txHash).toBe(tx.txHash.toUpperCase());
      for (const field of Object.keys(body.tx)) expect(read.tx, field).toHaveProperty(field);
      for (const field of Object.keys(body.metadata.kudosPay ?? {})) {
        expect(read.metadata.raw.kudosPay, field).toHaveProperty(field);
      }
      const outputs = read.tx.outputs.map((o) => o.address);
      expect(outputs).toEqual(read.tx.to);
    });
  });

  it('every API path and page of the contract is a route of the emulator', () => {
    const paths = new Set(Object.values(ROUTES).map((r) => r.path as string));
    for (const path of Object.values(KUDOS_API)) expect(paths, path).toContain(API_PREFIX + path);
    for (const path of Object.values(KUDOS_PAGES)) expect(paths, path).toContain(path);
    const { lcd, ...chain } = KUDOS_CHAIN;
    for (const path of Object.values(chain)) expect(paths, path).toContain(API_PREFIX + lcd + path);
  });

  it('every error word is read back as its code, and each observed one is in the error table', () => {
    const table = new Set(KUDOS_ERROR_CODES.map((row) => row.code));
    for (const [word, { observed }] of Object.entries(SERVICE_ERRORS)) {
      expect(readServiceError(word), word).toEqual({ code: word });
      if (observed) expect(table, word).toContain(word);
    }
  });
});
