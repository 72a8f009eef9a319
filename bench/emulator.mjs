// 8. The emulator as a test dependency: authorization-code exchanges per second against the Kudos
// emulator, side by side with oauth2-mock-server in the same run. Each exchange is a real POST of
// the form a login sends; the emulator gets a fresh single-use code for each one.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from './lib/load.mjs';
import { startApp } from './lib/procs.mjs';
import { ratio, summarize } from './lib/stats.mjs';

const form = (code) =>
  new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: 'http://127.0.0.1/cb',
    client_id: 'bench',
    client_secret: 'bench-secret',
  }).toString();

async function kudosRun(amount) {
  const dir = mkdtempSync(join(tmpdir(), 'kudos-bench-'));
  const file = join(dir, 'codes.json');
  const app = await startApp('kudos-emulator', { CODES: String(amount), CODES_FILE: file });
  try {
    const codes = JSON.parse(readFileSync(file, 'utf8'));
    return await load({
      url: `http://127.0.0.1:${app.port}/api/oauth/access_token`,
      amount,
      method: 'POST',
      setupRequest: (req, i) => ({
        ...req,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form(codes[i]),
      }),
      expectStatus: 200,
    });
  } finally {
    await app.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function mockRun(amount) {
  const app = await startApp('oauth2-mock-server');
  try {
    return await load({
      url: `http://127.0.0.1:${app.port}/token`,
      amount,
      method: 'POST',
      setupRequest: (req, i) => ({
        ...req,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form(`code-${i}`),
      }),
      expectStatus: 200,
    });
  } finally {
    await app.stop();
  }
}

/** @param {{ runs: number, amount: number }} size */
export async function benchEmulator({ runs, amount }) {
  if (!(Number.isInteger(amount) && amount > 0))
    throw new TypeError('benchEmulator needs a positive whole amount');
  const kudos = [];
  const mock = [];
  for (let r = 0; r < runs; r++) {
    kudos.push(await kudosRun(amount));
    mock.push(await mockRun(amount));
  }
  const summary = (list) => ({
    rps: summarize(list.map((x) => x.rps)),
    p99: summarize(list.map((x) => x.p99)),
  });
  const result = { amount, kudos: summary(kudos), oauth2MockServer: summary(mock) };
  return { ...result, ratio: ratio(result.kudos.rps.median, result.oauth2MockServer.rps.median) };
}
