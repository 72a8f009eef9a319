// Profiling aid (not part of npm run bench): runs one login load against the KudosStrategy app
// started with --cpu-prof, and prints where its CPU time went. `node bench/profile-login.mjs [kudos|anchor]`;
// PROF_INTERVAL=100 samples every 100 µs instead of every millisecond (a callback is about 450 µs).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { load } from './lib/load.mjs';
import { startApp } from './lib/procs.mjs';

const strategy = process.argv[2] ?? 'kudos';
const dir = `/tmp/kudos-prof-${strategy}`;
rmSync(dir, { recursive: true, force: true });
const token = await startApp('token-server');
const child = spawn(
  process.execPath,
  [
    '--cpu-prof',
    '--cpu-prof-interval',
    process.env.PROF_INTERVAL ?? '1000',
    `--cpu-prof-dir=${dir}`,
    'bench/apps/login-passport.mjs',
  ],
  {
    env: { ...process.env, STRATEGY: strategy, TOKEN_PORT: String(token.port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
const port = await new Promise((resolve) =>
  child.stdout.on('data', (d) => resolve(Number(/ready (\d+)/.exec(String(d))?.[1]))),
);
const { default: http } = await import('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
const pairs = [];
for (let i = 0; i < 5000; i += 50) {
  pairs.push(
    ...(await Promise.all(
      Array.from(
        { length: 50 },
        () =>
          new Promise((resolve) =>
            http.get({ host: '127.0.0.1', port, path: '/login', agent }, (res) => {
              res.resume();
              resolve({
                cookie: String(res.headers['set-cookie'][0]).split(';')[0],
                state: new URL(res.headers.location).searchParams.get('state'),
              });
            }),
          ),
      ),
    )),
  );
}
const r = await load({
  url: `http://127.0.0.1:${port}`,
  amount: 5000,
  setupRequest: (req, i) => ({
    ...req,
    path: `/callback?code=c${i}&state=${pairs[i].state}`,
    headers: { cookie: pairs[i].cookie },
  }),
  expectStatus: 302,
});
console.log(strategy, Math.round(r.rps), 'rps');
await new Promise((resolve) => {
  child.once('exit', resolve);
  child.kill('SIGTERM');
});
await token.stop();
const profile = JSON.parse(readFileSync(`${dir}/${readdirSync(dir)[0]}`, 'utf8'));
const self = new Map();
const dt = profile.timeDeltas;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const f = byId.get(id).callFrame;
  const key = `${f.functionName || '(anon)'} ${f.url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${f.lineNumber}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 25)))
  console.log(((v / total) * 100).toFixed(1).padStart(5), k);
