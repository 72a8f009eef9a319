// 1. Login callback: requests/s and p50/p99 of the full callback (state check, token exchange,
// profile, session login) for KudosStrategy, the passport-oauth2 peer subclass (anchor) and a
// hand-written node:http handler (the practical limit), against the same local token server.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { load } from './lib/load.mjs';
import { onCores, pinning } from './lib/pin.mjs';
import { startApp } from './lib/procs.mjs';
import { summarize } from './lib/stats.mjs';

const APPS = [
  { name: 'KudosStrategy', script: 'login-passport', env: { STRATEGY: 'kudos' } },
  { name: 'passport-oauth2 subclass (anchor)', script: 'login-passport', env: { STRATEGY: 'anchor' } },
  { name: 'node:http keep-alive handler (limit)', script: 'login-raw', env: {} },
  // The same KudosStrategy with its tracing channels subscribed to (section 1 compares them with it).
  {
    name: 'KudosStrategy, every tracing channel subscribed',
    script: 'login-passport',
    env: { STRATEGY: 'kudos', SUBSCRIBE: 'channels' },
  },
  {
    name: 'KudosStrategy, passport-kudos/otel (SDK spans and metrics)',
    script: 'login-passport',
    env: { STRATEGY: 'kudos', SUBSCRIBE: 'otel' },
  },
];

/** Starts `count` logins and returns their session cookie and state, ready for one callback each. */
async function startLogins(port, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const one = () =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/login', agent }, (res) => {
          res.resume();
          const cookie = String(res.headers['set-cookie']?.[0] ?? '').split(';')[0];
          const state = new URL(res.headers.location ?? '', 'http://x').searchParams.get('state');
          if (!cookie || !state) reject(new Error('login start gave no cookie or state'));
          else resolve({ cookie, state });
        })
        .on('error', reject);
    });
  const pairs = [];
  for (let i = 0; i < count; i += 64) {
    pairs.push(...(await Promise.all(Array.from({ length: Math.min(64, count - i) }, one))));
  }
  agent.destroy();
  return pairs;
}

/**
 * CPU time a process has used, in microseconds (Linux's /proc, in clock ticks of 10 ms); undefined
 * elsewhere. Over a run's 2,500 callbacks a tick is well under 1% of the figure.
 */
function cpuMicros(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/**
 * Runs `amount` callbacks against a running app, each with a login started just before: the load's
 * figures, and the app's CPU time per callback (its own cost, whatever the scheduler did).
 */
async function measure(server, amount) {
  const pairs = await startLogins(server.port, amount);
  const before = cpuMicros(server.pid);
  const result = await load({
    url: `http://127.0.0.1:${server.port}`,
    amount,
    setupRequest: (req, i) => ({
      ...req,
      path: `/callback?code=code-${i}&state=${pairs[i].state}`,
      headers: { cookie: pairs[i].cookie },
    }),
    expectStatus: 302,
  });
  const after = cpuMicros(server.pid);
  const cpuMicrosPerCallback =
    before === undefined || after === undefined ? undefined : (after - before) / amount;
  return { ...result, cpuMicrosPerCallback };
}

/**
 * Each run starts every app afresh, warms each up alike, and measures them in turn (the order
 * rotated each run): a Node process has a speed of its own (what its JIT inlined, where its heap
 * lies), which moved one app's figure by 10% from one process to the next, so a figure made of many
 * processes' runs is the app's, not one process's. All apps see the same machine as it drifts. Where
 * it can, the apps run on a core of their own (lib/pin.mjs).
 * @param {{ runs: number, amount: number, warmup: number }} options
 */
export async function benchLogin({ runs, amount, warmup }) {
  const pin = pinning();
  if (!pin) return runLogin({ runs, amount, warmup });
  return onCores(pin.rest, () => runLogin({ runs, amount, warmup, pin }));
}

/** @param {{ runs: number, amount: number, warmup: number, pin?: { apps: string, rest: string } }} options */
async function runLogin({ runs, amount, warmup, pin }) {
  const token = await startApp('token-server', {}, pin?.rest);
  const samples = APPS.map(() => ({ rps: [], p50: [], p99: [], cpu: [] }));
  try {
    for (let run = 0; run < runs; run++) {
      const servers = [];
      try {
        for (const app of APPS) {
          servers.push(await startApp(app.script, { ...app.env, TOKEN_PORT: String(token.port) }, pin?.apps));
        }
        for (const server of servers) await measure(server, warmup);
        for (let k = 0; k < APPS.length; k++) {
          const i = (run + k) % APPS.length;
          const r = await measure(servers[i], amount);
          samples[i].rps.push(r.rps);
          samples[i].p50.push(r.p50);
          samples[i].p99.push(r.p99);
          if (r.cpuMicrosPerCallback !== undefined) samples[i].cpu.push(r.cpuMicrosPerCallback);
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
    }
  } finally {
    await token.stop();
  }
  return APPS.map((app, i) => ({
    name: app.name,
    rps: summarize(samples[i].rps),
    p50: summarize(samples[i].p50),
    p99: summarize(samples[i].p99),
    cpuMicros: samples[i].cpu.length > 0 ? summarize(samples[i].cpu) : undefined,
  }));
}
