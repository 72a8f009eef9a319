// 7. Request data of growing length: how the time to answer one hostile request grows from 10,000 to
// 100,000 characters. Linear code takes about 10x as long; a backtracking regular expression 100x
// (one 15,800-space X-Forwarded-Proto header once cost 335 ms). Public API only, no network: the
// strategy's start (callback URL from forwarded headers), the callback's query, and the webhook
// receiver (URL secret, content type, Basic credentials).
import { Readable } from 'node:stream';
import { kudosWebhook } from 'kudos-payments';
import { KudosStrategy } from 'passport-kudos';
import { ratio, summarize } from './lib/stats.mjs';

const strategy = new KudosStrategy(
  {
    clientID: 'bench',
    clientSecret: 'bench-secret',
    callbackURL: '/callback',
    authURL: 'http://kudos.test',
    baseURL: 'http://kudos.test/api',
    proxy: true,
  },
  (_a, _r, profile, done) => done(null, { id: profile.id }),
);
const hook = kudosWebhook({ secret: 'bench-secret-0123456789', onNotification: () => undefined });

/** Runs authenticate() the way Passport does, resolving at the first action. */
function authenticate(req) {
  return new Promise((resolve) => {
    const run = Object.create(strategy);
    for (const action of ['success', 'fail', 'error', 'redirect', 'pass']) run[action] = resolve;
    run.authenticate({ session: {}, socket: {}, ...req });
  });
}

/** Sends one request to the webhook receiver, resolving when it answered. */
function webhook(url, headers) {
  return new Promise((resolve) => {
    const req = Object.assign(Readable.from([Buffer.from('{}')]), { method: 'POST', url, headers });
    hook(req, { headersSent: false, writeHead() {}, end: resolve });
  });
}

const CASES = {
  'X-Forwarded-Proto of spaces (start)': (n) =>
    authenticate({
      url: '/login',
      headers: { host: 'app.test', 'x-forwarded-proto': `https${' '.repeat(n)},http` },
    }),
  'X-Forwarded-Host of commas (start)': (n) =>
    authenticate({
      url: '/login',
      headers: { host: 'app.test', 'x-forwarded-host': `a${', '.repeat(n / 2)}` },
    }),
  'callback query of repeated codes': (n) =>
    authenticate({ url: `/callback?${'code=a&'.repeat(n / 7)}`, headers: { host: 'app.test' } }),
  'webhook path without slashes': (n) =>
    webhook(`/hooks/${'a'.repeat(n)}/`, { 'content-type': 'application/json' }),
  'webhook content type of plus signs': (n) =>
    webhook('/hooks/bench-secret-0123456789', { 'content-type': `application/${'+'.repeat(n)}x` }),
  'webhook Basic credentials': (n) =>
    webhook('/hooks/x', {
      'content-type': 'application/json',
      authorization: `Basic ${'QUFB'.repeat(n / 4)}`,
    }),
};

async function timeOf(fn, n, repeat) {
  const start = process.hrtime.bigint();
  for (let i = 0; i < repeat; i++) await fn(n);
  return Number(process.hrtime.bigint() - start) / repeat / 1e6;
}

/** @param {{ runs: number, repeat: number }} size */
export async function benchLinear({ runs, repeat }) {
  const rows = [];
  for (const [name, fn] of Object.entries(CASES)) {
    await timeOf(fn, 10_000, repeat); // warm up
    const short = [];
    const long = [];
    for (let r = 0; r < runs; r++) {
      short.push(await timeOf(fn, 10_000, repeat));
      long.push(await timeOf(fn, 100_000, repeat));
    }
    const s = summarize(short);
    const l = summarize(long);
    rows.push({ name, ms10k: s, ms100k: l, ratio: ratio(l.median, s.median) });
  }
  return rows;
}
