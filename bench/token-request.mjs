// Measuring aid (not part of npm run bench): the CPU time of one request to the token endpoint, this
// package's HTTP client against node-oauth's (what passport-oauth2 uses), in one process, 10 requests
// in flight against the same local token server. Both through public methods: `strategy.refresh()`
// and node-oauth's `getOAuthAccessToken()` with the refresh grant. A third client is node:http alone
// (a keep-alive POST of the same form, the body read and parsed, nothing else): the floor of any
// client that test mocks and HTTP instrumentation can see. `node bench/token-request.mjs`
import http from 'node:http';
import { KudosStrategy } from 'passport-kudos';
import OAuth2Strategy from 'passport-oauth2';
import { startApp } from './lib/procs.mjs';
import { summarize } from './lib/stats.mjs';

const token = await startApp('token-server');
const tokenURL = `http://127.0.0.1:${token.port}/oauth/access_token`;
const common = { clientID: 'bench', clientSecret: 'bench-secret', callbackURL: 'http://127.0.0.1/cb' };
const kudos = new KudosStrategy({ ...common, authURL: 'https://kudos.example', tokenURL }, () => {});
const anchor = new OAuth2Strategy(
  { ...common, authorizationURL: 'https://kudos.example/in', tokenURL },
  () => {},
);

const floorAgent = new http.Agent({ keepAlive: true });
const floorTarget = { hostname: '127.0.0.1', port: token.port, path: '/oauth/access_token' };

/** node:http alone: the same request with no time limit, size cap, validation or error mapping. */
function bareRequest(i) {
  const form = `grant_type=refresh_token&refresh_token=rt-${i}&client_id=bench&client_secret=bench-secret`;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        ...floorTarget,
        method: 'POST',
        agent: floorAgent,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          'Content-Length': Buffer.byteLength(form),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      },
    );
    req.on('error', reject);
    req.end(form);
  });
}

const clients = {
  'passport-kudos (strategy.refresh)': (i) => kudos.refresh(`rt-${i}`),
  'node-oauth (getOAuthAccessToken)': (i) =>
    new Promise((resolve, reject) =>
      anchor._oauth2.getOAuthAccessToken(`rt-${i}`, { grant_type: 'refresh_token' }, (error, ...rest) =>
        error ? reject(error) : resolve(rest),
      ),
    ),
  'node:http alone (the floor)': bareRequest,
};

/** CPU microseconds of this process per request, `amount` requests 10 at a time. */
async function cpuPerRequest(send, amount) {
  let next = 0;
  const worker = async () => {
    while (next < amount) await send(next++);
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 10 }, worker));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / amount;
}

try {
  for (const send of Object.values(clients)) await cpuPerRequest(send, 3000); // warm-up
  const samples = Object.keys(clients).map(() => []);
  const sends = Object.values(clients);
  for (let run = 0; run < 8; run++) {
    // Each client first in turn: the process warms and collects as it goes.
    for (let k = 0; k < sends.length; k++) {
      const i = (run + k) % sends.length;
      samples[i].push(await cpuPerRequest(sends[i], 4000));
    }
  }
  for (const [i, name] of Object.keys(clients).entries()) {
    const { median, min, max } = summarize(samples[i]);
    console.log(
      `${name}: ${median.toFixed(1)} µs of CPU per request (${min.toFixed(1)}–${max.toFixed(1)}, 8 runs)`,
    );
  }
} finally {
  floorAgent.destroy();
  await token.stop();
}
