import http, { type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { KudosStrategy } from '../../src/index.js';

// HTTP instrumentations (OpenTelemetry's, APM agents') wrap `http.request()`, copy the options'
// headers as an object (`Object.assign({}, headers)`) and add their own. The token request must go
// through such a wrapper intact: this is why the HTTP client keeps node:http and headers as an object
// (an array of headers would come out of that copy as headers named "0", "1"...; bench/notes.md).

const original = http.request;
let server: http.Server;
let received: IncomingHttpHeaders[];
let body: string[];

beforeEach(async () => {
  received = [];
  body = [];
  server = http.createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => {
      received.push(req.headers);
      body.push(text);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ user: 'alice', access_token: 'new-at', refresh_token: 'new-rt' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  http.request = original;
  await new Promise((resolve) => server.close(resolve));
});

/** What an HTTP instrumentation does to each request: a copy of the headers as an object, with its own added. */
function instrument(): RequestOptions[] {
  const seen: RequestOptions[] = [];
  http.request = ((...args: unknown[]) => {
    const options = { ...(args[0] as RequestOptions) };
    options.headers = Object.assign({}, options.headers, {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    });
    seen.push(options);
    return (original as (...a: unknown[]) => http.ClientRequest)(options, ...args.slice(1));
  }) as typeof http.request;
  return seen;
}

it('sends the token request through an instrumentation that copies its headers as an object', async () => {
  const seen = instrument();
  const { port } = server.address() as AddressInfo;
  const strategy = new KudosStrategy(
    {
      clientID: 'app',
      clientSecret: 'app-secret',
      callbackURL: 'http://127.0.0.1/callback',
      authURL: `http://127.0.0.1:${port}`,
      baseURL: `http://127.0.0.1:${port}/api`,
    },
    (_a, _r, _p, done) => done(null, {}),
  );
  expect(await strategy.refresh('old-rt')).toMatchObject({ accessToken: 'new-at', refreshToken: 'new-rt' });
  expect(seen).toHaveLength(1);
  expect(received[0]).toMatchObject({
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json, text/plain',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  });
  expect(Object.keys(received[0] ?? {}).filter((name) => /^\d+$/.test(name))).toEqual([]);
  expect(new URLSearchParams(body[0]).get('refresh_token')).toBe('old-rt');
});
