import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One address in front of several app instances, like a load balancer. A request goes to the
 * instance named by its `x-instance` header (an index), else round robin.
 */
export interface FrontProxy {
  url: string;
  port: number;
  targets: number[];
  close(): Promise<void>;
}

export async function startFrontProxy(): Promise<FrontProxy> {
  let next = 0;
  const proxy: FrontProxy = { url: '', port: 0, targets: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chosen =
      req.headers['x-instance'] !== undefined
        ? Number(req.headers['x-instance'])
        : next++ % proxy.targets.length;
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: proxy.targets[chosen],
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `http://localhost:${proxy.port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
