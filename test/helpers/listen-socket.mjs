// Preloaded into a child process of a test (`node --import`, or NODE_OPTIONS through a runner such
// as tsx, which starts node again), so that the child's app, whose code reads
// `app.listen(Number(process.env.PORT))`, never listens on a port the test picked and released
// (another program may take it in between on a busy machine):
//
// - KUDOS_TEST_LISTEN_FD: the test bound port 0 and handed the listening socket as that file
//   descriptor (it had to know the port before the child started): the app's listen() on $PORT
//   takes that socket;
// - KUDOS_TEST_PORT_ZERO: this process binds port 0 before the app runs, sets PORT to it, writes
//   it into every environment value that says `{PORT}` (a URL the app must know before it listens),
//   and the app's listen() on $PORT takes that socket; the port is written to stderr as
//   `kudos-test-listening <port>` once the app listens on it. Each node process binds its own (a
//   runner's process never listens on it, and its socket does not keep it alive).
import net from 'node:net';

const listen = net.Server.prototype.listen;

/**
 * The app's first listen() on `port` takes `socket`: a listening net.Server, or `{ fd }`, the handed
 * socket itself, which only the app's server accepts on (a server of this preload listening on it
 * before the app does would accept a connection that came early, with nobody to answer it).
 */
function handOver(socket, port, report) {
  net.Server.prototype.listen = function listenOnHandedSocket(...args) {
    const first = args[0];
    const asked = typeof first === 'object' && first !== null ? first.port : first;
    if (Number(asked) !== port) return listen.apply(this, args);
    net.Server.prototype.listen = listen; // once: any later server binds as usual
    if (socket instanceof net.Server) socket.ref();
    if (report) this.once('listening', () => process.stderr.write(`kudos-test-listening ${port}\n`));
    return listen.call(
      this,
      socket,
      args.find((arg) => typeof arg === 'function'),
    );
  };
}

const fd = Number(process.env.KUDOS_TEST_LISTEN_FD);
if (Number.isInteger(fd) && fd > 2) {
  // Connections that come before the app listens wait in the socket's queue for it.
  handOver({ fd }, Number(process.env.PORT), false);
} else if (process.env.KUDOS_TEST_PORT_ZERO === '1') {
  const own = net.createServer();
  // No host, as `app.listen(port)` binds: every address, so that `localhost` reaches it by IPv4 or IPv6.
  await new Promise((resolve, reject) => {
    own.once('error', reject);
    own.listen({ port: 0 }, resolve);
  });
  own.unref();
  const { port } = own.address();
  for (const [name, value] of Object.entries(process.env)) {
    if (value?.includes('{PORT}')) process.env[name] = value.replaceAll('{PORT}', String(port));
  }
  process.env.PORT = String(port);
  handOver(own, port, true);
}
