import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One notification the sink received. */
export interface ReceivedHook {
  path: string;
  contentType: string;
  /** The Authorization header, when one was sent. */
  authorization: string | undefined;
  body: unknown;
}

/** A real HTTP webhook receiver on 127.0.0.1 that answers a scripted sequence of statuses. */
export interface WebhookSink {
  url: string;
  received: ReceivedHook[];
  /** Statuses for the next requests, in order; 200 once they run out. */
  script: number[];
  close: () => Promise<void>;
}

/** Starts a webhook sink. */
export async function startWebhookSink(script: number[] = []): Promise<WebhookSink> {
  const sink: WebhookSink = { url: '', received: [], script, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      sink.received.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        authorization: req.headers.authorization,
        body: JSON.parse(Buffer.concat(chunks).toString() || 'null'),
      });
      res.writeHead(sink.script.shift() ?? 200);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  sink.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/kudos?token=agent-secret`;
  sink.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return sink;
}
