// oauth2-mock-server (the npm tool users would otherwise reach for) as a benchmark target, with
// its default RS256 key; prints "ready <port>".
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
await server.issuer.keys.generate('RS256');
await server.start(0, '127.0.0.1');
process.once('SIGTERM', () => void server.stop().then(() => process.exit(0)));
console.log(`ready ${server.address().port}`);
