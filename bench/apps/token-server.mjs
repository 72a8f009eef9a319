// A local token endpoint that answers like Kudos (the five fields of docs/kudos-service.md#token-response), fast.
import http from 'node:http';

const body = JSON.stringify({
  user: 'alice-example',
  displayName: 'Alice Example',
  avatar: 'https://storage.example/avatars/alice.png?Expires=1900000000&Signature=c2ln',
  refresh_token: 'Zk3-4Qx9vB2yLr8TnW1sPq7uHa0cEd5fGj6kMo2Nb1x',
  access_token: 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiYWxpY2UtZXhhbXBsZSIsImV4cCI6MTkwMDAwMDAwMH0.c2ln',
});
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
