import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the fake token endpoint answers the next requests. */
export type TokenAnswer =
  | { kind: 'json'; status?: number; body: unknown }
  | { kind: 'text'; status: number; body: string; contentType?: string }
  | { kind: 'stall' };

/** One request the fake token endpoint received. */
export interface RecordedRequest {
  method: string;
  path: string;
  contentType: string;
  form: Record<string, string>;
  /** The body as sent (repeated keys and the encoding are visible here). */
  raw: string;
  headers: IncomingHttpHeaders;
}

/** A real HTTP token endpoint on 127.0.0.1 with a free port, scripted by the test. */
export interface FakeTokenServer {
  baseURL: string;
  requests: RecordedRequest[];
  answer: TokenAnswer;
  /** Sockets destroyed by the client (what a client-side timeout must do). */
  closedSockets: () => number;
  /** Forgets the requests and answers as when started: what an `afterEach` needs between tests. */
  reset: () => void;
  close: () => Promise<void>;
}

/** The five fields of a real token response (docs/kudos-service.md#observed-values), for a user. */
export function tokenResponse(user = 'alice-example'): Record<string, string> {
  return {
    user,
    displayName: 'Alice Example',
    avatar: 'https://storage.example/avatars/alice.png?Expires=1900000000&Signature=abc',
    refresh_token: 'rt_Zk3-4Qx9vB2yLr8TnW1sPq7uHa0cEd5fGj6kMo2Nb1',
    access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiYWxpY2UifQ.sig',
  };
}

/** Starts the fake token endpoint at `{baseURL}/oauth/access_token`. */
export async function startTokenServer(answer: TokenAnswer = { kind: 'json', body: tokenResponse() }) {
  let closed = 0;
  const state: FakeTokenServer = {
    baseURL: '',
    requests: [],
    answer,
    closedSockets: () => closed,
    reset: () => {
      state.requests.length = 0;
      state.answer = answer;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString();
      state.requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        form: Object.fromEntries(new URLSearchParams(raw)),
        raw,
        headers: req.headers,
      });
      const a = state.answer;
      if (a.kind === 'stall') return;
      if (a.kind === 'json') {
        res.writeHead(a.status ?? 200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(a.body));
      } else {
        res.writeHead(a.status, { 'content-type': a.contentType ?? 'text/plain' });
        res.end(a.body);
      }
    });
  });
  server.on('connection', (socket) => socket.on('close', () => closed++));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = state.close;
  state.close = () => {
    server.closeAllConnections();
    return close();
  };
  return state;
}

/**
 * The Passport profile the strategy must build from a token response with `user`, `displayName`
 * and `avatar`, written out by hand (not by the code under test), without the tokens.
 */
export function expectedProfile(sent: Record<string, unknown>): object {
  const fields = { user: sent.user, displayName: sent.displayName, avatar: sent.avatar };
  return {
    provider: 'kudos',
    id: sent.user,
    username: sent.user,
    displayName: sent.displayName,
    photos: [{ value: sent.avatar }],
    _raw: JSON.stringify(fields),
    _json: fields,
  };
}
