// Scratch: kudos vs anchor login callbacks, N same-run pairs (not committed).
import { readFileSync } from 'node:fs';
import http from 'node:http';
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
import { load } from './lib/load.mjs';
import { startApp } from './lib/procs.mjs';
const N = Number(process.argv[2] ?? 5);
const AMOUNT = Number(process.argv[3] ?? 2500);
async function startLogins(port, count) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const one = () => new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/login', agent }, (res) => { res.resume();
      resolve({ cookie: String(res.headers['set-cookie']?.[0]).split(';')[0], state: new URL(res.headers.location, 'http://x').searchParams.get('state') }); }).on('error', reject); });
  const pairs = [];
  for (let i = 0; i < count; i += 64) pairs.push(...(await Promise.all(Array.from({ length: Math.min(64, count - i) }, one))));
  agent.destroy(); return pairs;
}
async function measure(server, amount) {
  const pairs = await startLogins(server.port, amount);
  return load({ url: `http://127.0.0.1:${server.port}`, amount, setupRequest: (req, i) => ({ ...req, path: `/callback?code=c${i}&state=${pairs[i].state}`, headers: { cookie: pairs[i].cookie } }), expectStatus: 302 });
}
const token = await startApp('token-server');
const kudos = await startApp('login-passport', { STRATEGY: 'kudos', TOKEN_PORT: String(token.port) });
const anchor = await startApp('login-passport', { STRATEGY: 'anchor', TOKEN_PORT: String(token.port) });
await measure(kudos, 1000); await measure(anchor, 1000);
const ratios = [];
for (let r = 0; r < N; r++) {
  const order = r % 2 ? [anchor, kudos] : [kudos, anchor];
  const res = new Map();
  const us = new Map();
  for (const s of order) {
    const pairs = await startLogins(s.port, AMOUNT);
    const before = cpu(s.pid);
    const r = await load({ url: `http://127.0.0.1:${s.port}`, amount: AMOUNT, setupRequest: (req, i) => ({ ...req, path: `/callback?code=c${i}&state=${pairs[i].state}`, headers: { cookie: pairs[i].cookie } }), expectStatus: 302 });
    us.set(s, ((cpu(s.pid) - before) * 1000) / AMOUNT);
    res.set(s, r.rps);
  }
  ratios.push(res.get(kudos) / res.get(anchor));
  console.log(`pair ${r + 1}: kudos ${Math.round(res.get(kudos))} anchor ${Math.round(res.get(anchor))} ratio ${(res.get(kudos) / res.get(anchor)).toFixed(3)}  cpu µs/callback kudos ${us.get(kudos).toFixed(0)} anchor ${us.get(anchor).toFixed(0)}`);
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log('median ratio', sorted[Math.floor(sorted.length / 2)].toFixed(3));
await Promise.all([kudos, anchor, token].map((s) => s.stop()));
