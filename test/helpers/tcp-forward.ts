import net from 'node:net';

/**
 * One TCP address in front of a Redis, as a managed Redis's primary endpoint (a DNS name or a
 * virtual IP) is: `point()` moves it to another server and drops the connections to the old one.
 */
export interface TcpForward {
  port: number;
  point(port: number): void;
  close(): Promise<void>;
}

export async function startTcpForward(target: number): Promise<TcpForward> {
  let to = target;
  const open = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const outbound = net.connect(to, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      open.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        open.delete(socket);
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    point(port) {
      to = port;
      for (const socket of open) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
