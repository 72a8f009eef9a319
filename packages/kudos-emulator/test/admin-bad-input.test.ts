import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_USERS } from '../../../test/helpers/emulator-user.js';

// The admin API (what the CLI and the home page use) answers every bad field with 400 (or 404/409)
// and a message naming the field, never a crash.
describe('the emulator admin API refuses bad input naming the field', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator({ users: PAYMENT_USERS, agents: [{ id: 'shop-agent' }] });
  });
  afterAll(() => kudos.close());

  const post = async (path: string, body: unknown, contentType = 'application/json') => {
    const res = await fetch(`${kudos.authURL}/_emulator/${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return {
      status: res.status,
      json: (await res.json()) as { error?: string; code?: string; field?: string },
    };
  };

  it.each([
    ['payments', { to: 'bobby', amount: '1', status: 'maybe' }, 400, 'status'],
    ['payments', { to: 'nobody', amount: '1' }, 400, undefined],
    ['payments', { to: 'bobby', amount: 'lots' }, 400, undefined],
    ['clock/advance', { advance: 'soon' }, 400, 'advance'],
    ['clock/advance', { advance: '999999d' }, 400, 'advance'],
    ['agents', { id: 'ghost', update: true }, 404, 'id'],
    ['agents', { id: 'shop-agent' }, 409, undefined],
    ['agents', { id: 'shop-agent', update: true, webhookURL: 'ftp://x/y' }, 400, 'webhookURL'],
    ['agents', { id: 'shop-agent', update: true, forwardTo: 'not a url' }, 400, 'forwardTo'],
    [
      'agents',
      { id: 'shop-agent', update: true, forwardTo: 'http://127.0.0.1:9/h', forwardForMs: 0 },
      400,
      'forwardForMs',
    ],
    ['users', { id: 'alice', password: 'again' }, 409, undefined],
    ['users', { id: '', password: 'pw' }, 400, undefined],
    ['clients', { clientID: 'app', clientSecret: 's', redirectURI: 'relative/cb' }, 400, 'redirectURI'],
  ])('POST %s %j: %i', async (path, body, status, field) => {
    const answer = await post(path, body);
    expect(answer.status).toBe(status);
    expect(typeof answer.json.error).toBe('string');
    // The field is named in the message, or given as `field` beside it.
    if (field)
      expect(`${answer.json.error} ${answer.json.field}`).toMatch(new RegExp(`"${field}"|\\b${field}$`));
  });

  it('takes changes only as a JSON object', async () => {
    expect((await post('users', '{"id":', 'application/json')).status).toBe(400);
    expect((await post('users', '[1]', 'application/json')).status).toBe(400);
    expect((await post('users', 'id=carol', 'application/x-www-form-urlencoded')).status).toBe(415);
  });
});
