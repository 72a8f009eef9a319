import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A server listening on 127.0.0.1 at a free port, and a close that ends its open connections too. */
export interface Listening {
  url: string;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1:0: `target` is a node:http server or anything with Express's `listen`. */
export async function listenLocal(target: {
  listen(port: number, host: string): Server;
}): Promise<Listening> {
  const server = target.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
