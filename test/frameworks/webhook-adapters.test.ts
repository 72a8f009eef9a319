import http from 'node:http';
import { serve } from '@hono/node-server';
import {
  type KudosReceiverOptions,
  kudosReceiver,
  kudosWebhook,
  kudosWebhookFetch,
  MemoryDedupeStore,
} from 'kudos-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Listening, listenLocal } from '../helpers/listen.js';
import { sampleNotification, withAmount } from '../helpers/notifications.js';
import { buildWebhookApp as fastifyWebhookApp } from './fastify/kudos-webhook.js';
import { buildWebhookApp as honoWebhookApp } from './hono/kudos-webhook.js';

// One table of deliveries through every adapter of the one receiver, as the package is installed:
// node:http, Express 4 and 5 (with and without express.json()), Fastify (the receiver itself, as
// docs/frameworks.md shows it), the Fetch adapter called with Node's own Request, and the Fetch
// adapter in a real Hono app served over HTTP (docs/frameworks.md too). Every adapter answers every
// delivery alike: the same status, the same JSON, the same headers that matter.

const SECRET = 'adapters-shared-secret-0123';
const LIMIT = 2048;

/** One delivery of the table: how it is sent. */
interface Row {
  name: string;
  method?: string;
  /** Appended to the receiver's path. */
  target?: string;
  headers?: Record<string, string>;
  body?: string;
}

const notification = (hash: string) =>
  JSON.stringify({ ...sampleNotification(), tx: { ...sampleNotification().tx, txHash: hash } });
const HASH = 'A'.repeat(64);
const TABLE: Row[] = [
  { name: 'a notification with the secret in the query', body: notification(HASH) },
  { name: 'the same again: a duplicate', body: notification(HASH) },
  {
    name: 'the secret as the password of Basic credentials',
    target: '',
    headers: { authorization: `Basic ${Buffer.from(`agent:${SECRET}`).toString('base64')}` },
    body: notification('C'.repeat(64)),
  },
  { name: 'a wrong secret', target: '?token=not-the-secret-0000000', body: notification('D'.repeat(64)) },
  { name: 'no secret', target: '', body: notification('D'.repeat(64)) },
  { name: 'GET', method: 'GET' },
  { name: 'text/plain', headers: { 'content-type': 'text/plain' }, body: notification('E'.repeat(64)) },
  { name: 'invalid JSON', body: '{"tx": ' },
  { name: 'an empty body', body: '' },
  { name: 'a body over the limit', body: JSON.stringify({ pad: 'x'.repeat(LIMIT) }) },
  { name: 'a field of the wrong type', body: JSON.stringify(withAmount('one')) },
  { name: 'JSON that is not an object', body: '[1,2,3]' },
];

/** What is compared of an answer. */
interface Answer {
  status: number;
  body: unknown;
  allow: string | null;
  retryAfter: string | null;
  contentType: string | null;
}

function options(): KudosReceiverOptions {
  return {
    secret: SECRET,
    store: new MemoryDedupeStore(),
    maxBodyBytes: LIMIT,
    onNotification: () => undefined,
  };
}

/** Sends one row to `base` (the receiver's URL without a query) over HTTP. */
async function send(base: string, row: Row): Promise<Answer> {
  const target = row.target ?? `?token=${SECRET}`;
  const res = await fetch(`${base}${target}`, {
    method: row.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...row.headers },
    ...(row.method === 'GET' ? {} : { body: row.body ?? '' }),
  });
  return read(res);
}

async function read(res: Response): Promise<Answer> {
  const text = await res.text();
  return {
    status: res.status,
    body: text === '' ? '' : JSON.parse(text),
    allow: res.headers.get('allow'),
    retryAfter: res.headers.get('retry-after'),
    contentType: res.headers.get('content-type'),
  };
}

/** Each adapter: a way to answer one row, and what to close. */
interface Adapter {
  answer(row: Row): Promise<Answer>;
  close(): Promise<void>;
}

async function overHttp(server: http.Server, path = '/webhooks/kudos'): Promise<Adapter> {
  const listening: Listening = await listenLocal(server);
  return { answer: (row) => send(`${listening.url}${path}`, row), close: () => listening.close() };
}

async function expressAdapter(major: 4 | 5, json: boolean): Promise<Adapter> {
  const express = (major === 4 ? await import('express4') : await import('express5')).default;
  const hook = kudosWebhook(options());
  const app = express();
  if (json) app.use(express.json({ limit: LIMIT }));
  app.all('/webhooks/kudos', hook);
  app.all('/webhooks/kudos/:secret', hook);
  app.use('/webhooks/kudos', hook.errorHandler);
  return overHttp(http.createServer(app));
}

/** Fastify (docs/frameworks.md's test/frameworks/fastify/kudos-webhook.ts): the receiver itself. */
async function fastifyAdapter(): Promise<Adapter> {
  const app = await fastifyWebhookApp(kudosReceiver(options()));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    answer: (row) => send(`http://127.0.0.1:${port}/webhooks/kudos`, row),
    close: () => app.close(),
  };
}

/** The Fetch adapter called in process with Node's own Request (no server at all). */
function fetchAdapter(): Adapter {
  const handler = kudosWebhookFetch(options());
  return {
    answer: async (row) => {
      const target = row.target ?? `?token=${SECRET}`;
      const request = new Request(`http://shop.example/webhooks/kudos${target}`, {
        method: row.method ?? 'POST',
        headers: { 'content-type': 'application/json', ...row.headers },
        ...(row.method === 'GET' ? {} : { body: row.body ?? '' }),
      });
      return read(await handler(request));
    },
    close: async () => undefined,
  };
}

/** The Fetch adapter in a Hono app (test/frameworks/hono/kudos-webhook.ts), served over real HTTP by @hono/node-server. */
async function honoAdapter(): Promise<Adapter> {
  const { app } = honoWebhookApp(options());
  const server = await new Promise<http.Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as http.Server));
  });
  const { port } = server.address() as { port: number };
  return {
    answer: (row) => send(`http://127.0.0.1:${port}/webhooks/kudos`, row),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('one table of deliveries, the same answers through every adapter', () => {
  const adapters: Record<string, Adapter> = {};
  const answers: Record<string, Answer[]> = {};

  beforeAll(async () => {
    const hook = kudosWebhook(options());
    adapters['node:http'] = await overHttp(http.createServer((req, res) => hook(req, res)));
    adapters['Express 4'] = await expressAdapter(4, false);
    adapters['Express 5'] = await expressAdapter(5, false);
    adapters['Express 5 + express.json()'] = await expressAdapter(5, true);
    adapters.Fastify = await fastifyAdapter();
    adapters['Fetch (Node Request)'] = fetchAdapter();
    adapters['Fetch in Hono'] = await honoAdapter();
    for (const [name, adapter] of Object.entries(adapters)) {
      answers[name] = [];
      for (const row of TABLE) answers[name].push(await adapter.answer(row));
    }
  });
  afterAll(async () => {
    await Promise.all(Object.values(adapters).map((a) => a.close()));
  });

  it('node:http answers the table as the receiver documents it', () => {
    const node = answers['node:http'] as Answer[];
    expect(node.map((a) => [a.status, (a.body as { code?: string }).code ?? 'ok'])).toEqual([
      [200, 'ok'],
      [200, 'ok'],
      [200, 'ok'],
      [401, 'invalid_secret'],
      [401, 'invalid_secret'],
      [405, 'method_not_allowed'],
      [415, 'unsupported_media_type'],
      [400, 'invalid_json'],
      [400, 'invalid_json'],
      [413, 'payload_too_large'],
      [422, 'invalid_amount'],
      [400, 'not_an_object'],
    ]);
    expect(node[1]?.body).toEqual({ ok: true, duplicate: true, key: `${HASH}:success` });
    expect(node[5]?.allow).toBe('POST');
    for (const a of node) expect(a.contentType).toBe('application/json; charset=utf-8');
  });

  it.each([
    'Express 4',
    'Express 5',
    'Express 5 + express.json()',
    'Fastify',
    'Fetch (Node Request)',
    'Fetch in Hono',
  ])('%s answers every delivery of the table as node:http does', (name) => {
    const node = answers['node:http'] as Answer[];
    const theirs = answers[name] as Answer[];
    for (const [i, row] of TABLE.entries()) {
      expect(theirs[i], `${name}: ${row.name}`).toEqual(node[i]);
    }
  });
});
