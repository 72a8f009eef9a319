// 11. The Redis stores on node-redis and ioredis, on one server and on a 3-master cluster: how many
// notifications/s pass the dedupe store's part of a delivery (the claim that keeps the notification,
// then the completion, as kudosWebhook does for a verified one), 50 in flight, against the least a
// dedupe on that client can do (SET NX with a lease, then SET done: the baseline); round trips per
// notification (the client's sends, counted) and the commands Redis ran for it, those inside the
// scripts included (INFO commandstats on every node); memory per 100,000 completed keys and per
// kept notification (INFO memory on every node).

import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { RedisDedupeStore } from 'kudos-payments/redis';
import { createClient, createCluster } from 'redis';
import { benchRedisCluster, benchRedisServer } from './lib/redis.mjs';
import { summarize } from './lib/stats.mjs';

const run = promisify(execFile);
const sample = JSON.parse(
  readFileSync(new URL('../test/fixtures/notifications/sample.json', import.meta.url), 'utf8'),
);
const HOUR = 3600 * 1000;
const WEEK = 7 * 24 * HOUR;

/** Sums a field of INFO `section` over `ports`. */
async function infoSum(ports, section, pattern) {
  let total = 0;
  for (const port of ports) {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'INFO', section]);
    for (const m of stdout.matchAll(pattern)) total += Number(m[1]);
  }
  return total;
}
// The bench's own INFO and the clients' CLUSTER slot reads are not the stores' commands.
const commands = (ports) => infoSum(ports, 'commandstats', /^cmdstat_(?!info|cluster)\w+:calls=(\d+)/gm);
const memory = (ports) => infoSum(ports, 'memory', /^used_memory:(\d+)/gm);

/** Runs `one(i)` for i in [from, from + amount), `inFlight` at a time; resolves the seconds taken. */
async function drive(from, amount, inFlight, one) {
  let next = from;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < from + amount) await one(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

const hashOf = (tag, i) =>
  `${tag}${i
    .toString(16)
    .toUpperCase()
    .padStart(63 - tag.length, '0')}`;

function record(txHash) {
  return {
    key: `${txHash}:success`,
    txHash,
    status: 'success',
    attempts: 1,
    lastError: null,
    receivedAt: Date.now(),
    body: { ...sample, tx: { ...sample.tx, txHash } },
    source: 'webhook',
    trusted: true,
  };
}

/** The clients of one library on one place, as apps make them. */
async function connect(library, place) {
  if (library === 'node-redis') {
    const client = place.url
      ? createClient({ url: place.url, disableOfflineQueue: true })
      : createCluster({ rootNodes: place.ports.map((port) => ({ url: `redis://127.0.0.1:${port}` })) });
    await client.connect();
    const send = place.url
      ? (args) => client.sendCommand(args)
      : (args) => client.sendCommand(args[1], false, args);
    return { client, send, close: () => client.destroy() };
  }
  const client = place.url
    ? new Redis(place.url)
    : new Cluster(place.ports.map((port) => ({ host: '127.0.0.1', port })));
  await new Promise((resolve) => client.once('ready', resolve));
  return { client, send: (args) => client.call(...args), close: () => client.disconnect() };
}

/**
 * The client seen through a Proxy that counts its sends: round trips, whatever the library (the
 * store still tells the library by the client's own properties).
 */
function counted(client) {
  const counter = { trips: 0 };
  const proxy = new Proxy(client, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if ((name === 'sendCommand' || name === 'call') && typeof value === 'function') {
        return (...args) => {
          counter.trips++;
          return value.apply(target, args);
        };
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { proxy, counter };
}

async function measure(library, place, { amount, kept }) {
  const { client, send, close } = await connect(library, place);
  try {
    const { proxy, counter } = counted(client);
    const store = new RedisDedupeStore(proxy, { prefix: `bench:${library}:` });
    const notification = async (i) => {
      const txHash = hashOf('B', i);
      const claim = { token: `t${i}`, trusted: true };
      await store.claim(`${txHash}:success`, 30_000, {
        ...claim,
        keep: { record: record(txHash), ttlMs: WEEK },
      });
      await store.complete(`${txHash}:success`, WEEK, claim);
    };
    const baseline = async (i) => {
      const key = `bench:${library}:naive:${hashOf('N', i)}`;
      await send(['SET', key, `t${i}`, 'NX', 'PX', '30000']);
      await send(['SET', key, 'done', 'PX', String(WEEK)]);
    };
    await drive(0, 500, 50, notification); // warm-up: connections, scripts loaded on every node
    await drive(0, 500, 50, baseline);
    const commandsBefore = await commands(place.ports);
    const memoryBefore = await memory(place.ports);
    const tripsBefore = counter.trips;
    const seconds = await drive(1000, amount, 50, notification);
    const tripsPerNotification = (counter.trips - tripsBefore) / amount;
    const perNotification = ((await commands(place.ports)) - commandsBefore) / amount;
    const completedBytes = ((await memory(place.ports)) - memoryBefore) / amount;
    const baseSeconds = await drive(1000, amount, 50, baseline);
    // Kept notifications: claimed with their record, not completed (as a failed handler leaves them).
    const keptBefore = await memory(place.ports);
    await drive(0, kept, 50, async (i) => {
      const txHash = hashOf('K', i);
      await store.claim(`${txHash}:success`, 30_000, {
        token: `k${i}`,
        trusted: true,
        keep: { record: record(txHash), ttlMs: WEEK },
      });
    });
    const keptBytes = ((await memory(place.ports)) - keptBefore) / kept;
    return {
      rps: amount / seconds,
      baselineRps: amount / baseSeconds,
      tripsPerNotification,
      commandsPerNotification: perNotification,
      bytesPer100kCompleted: completedBytes * 100_000,
      bytesPerKept: keptBytes,
    };
  } finally {
    await close();
  }
}

/** @param {{ runs: number, amount: number, kept: number }} options */
export async function benchRedisTopologies({ runs, amount, kept }) {
  const server = await benchRedisServer();
  const cluster = await benchRedisCluster(3);
  if (!server || !cluster) return undefined;
  const places = [
    { name: 'one server', url: server.url, ports: [server.port] },
    { name: 'cluster, 3 masters', ports: cluster.nodes.map((n) => n.port) },
  ];
  const rows = [];
  // The machine's load as the section runs: the absolute figures move with it (the ratios less).
  const loadBefore = loadavg()[0];
  try {
    for (const place of places) {
      for (const library of ['node-redis', 'ioredis']) {
        const samples = [];
        for (let r = 0; r < runs; r++) {
          // Each run on fresh keys: flush so memory and counts are this run's alone.
          for (const port of place.ports) await run('redis-cli', ['-p', String(port), 'FLUSHALL']);
          samples.push(await measure(library, place, { amount, kept }));
        }
        const median = (field) => summarize(samples.map((s) => s[field]));
        rows.push({
          library,
          topology: place.name,
          rps: median('rps'),
          baselineRps: median('baselineRps'),
          tripsPerNotification: median('tripsPerNotification').median,
          commandsPerNotification: median('commandsPerNotification').median,
          bytesPer100kCompleted: median('bytesPer100kCompleted').median,
          bytesPerKept: median('bytesPerKept').median,
        });
      }
    }
  } finally {
    await server.stop();
    await cluster.stop();
  }
  return {
    amount,
    kept,
    rows,
    load: { before: loadBefore, after: loadavg()[0], cpus: availableParallelism() },
  };
}
