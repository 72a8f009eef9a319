import net from 'node:net';
import fc from 'fast-check';
import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** Sends raw bytes and returns the status line of the answer (or '' when the socket closed). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(request));
    let text = '';
    socket.on('data', (c: Buffer) => {
      text += c.toString();
    });
    socket.on('close', () => resolve(text.split('\r\n')[0] ?? ''));
    socket.on('error', () => resolve(''));
  });
}

describe('emulator under bad input: a clear answer, never a crash or a stack trace', () => {
  let kudos: KudosEmulator;
  const logged: string[] = [];
  beforeAll(async () => {
    kudos = await startKudosEmulator({ log: (line) => logged.push(line) });
  });
  afterAll(() => kudos.close());

  it.each([
    ['malformed cookie', { cookie: 'kudos_emulator_session=%E0%A4%A' }, '/in/account', 302],
    ['malformed avatar path', {}, '/avatars/%E0%A4%A.svg?Expires=1&Signature=x', 403],
    ['malformed hash path', {}, '/api/cosmos/lcd/cosmos/tx/v1beta1/txs/%E0%A4%A', 400],
  ])('%s', async (_name, headers, path, status) => {
    const res = await fetch(`${kudos.authURL}${path}`, { headers, redirect: 'manual' });
    expect(res.status).toBe(status);
    expect(await res.text()).not.toMatch(/\n\s+at /);
  });

  it('answers a malformed HTTP request with 400 and stays up', async () => {
    expect(await raw(kudos.port, 'GARBAGE\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect((await fetch(kudos.authURL)).status).toBe(200);
  });

  it('answers any form body at the token endpoint with a documented status and plain-text code', async () => {
    const codes = new Set([
      'MISSING_CLIENT_INFO',
      'INVALID_CLIENT_CRED',
      'BODY_PARSE_FAILED',
      'INVALID_GRANT',
      'UNSUPPORTED_GRANT_TYPE',
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom(
            'client_id',
            'client_secret',
            'grant_type',
            'code',
            'redirect_uri',
            'refresh_token',
            'x',
          ),
          fc.oneof(
            fc.string(),
            fc.constantFrom('kudos-demo-client', 'kudos-demo-secret', 'authorization_code', 'refresh_token'),
          ),
        ),
        fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', ''),
        async (form, contentType) => {
          const res = await fetch(`${kudos.baseURL}/oauth/access_token`, {
            method: 'POST',
            headers: contentType ? { 'content-type': contentType } : {},
            body: new URLSearchParams(form).toString(),
          });
          const text = await res.text();
          expect(res.status).toBe(400);
          expect(codes.has(text)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    expect(logged.some((line) => line.includes('internal error'))).toBe(false);
  });
});
