// The practical limit: a hand-written node:http handler doing the same work as a login callback
// (state check against a session, token POST on a keep-alive agent, session write), nothing else.
import { randomBytes } from 'node:crypto';
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true });
const sessions = new Map();
const form =
  'grant_type=authorization_code&client_id=bench&client_secret=bench-secret&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&code=';

function sid(req) {
  return /(?:^|; )sid=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
}

function postToken(code) {
  return new Promise((resolve, reject) => {
    const body = form + encodeURIComponent(code);
    const req = http.request(
      {
        host: '127.0.0.1',
        port: Number(process.env.TOKEN_PORT),
        path: '/oauth/access_token',
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve(JSON.parse(text)));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/login') {
    const id = randomBytes(18).toString('base64url');
    const state = randomBytes(18).toString('base64url');
    sessions.set(id, { state });
    res.writeHead(302, {
      location: `https://kudos.example/in/oauth/?state=${state}`,
      'set-cookie': `sid=${id}; HttpOnly`,
    });
    return res.end();
  }
  const session = sessions.get(sid(req));
  if (!session || session.state !== url.searchParams.get('state')) {
    res.writeHead(403);
    return res.end();
  }
  delete session.state;
  const tokens = await postToken(url.searchParams.get('code'));
  if (typeof tokens.user !== 'string') {
    res.writeHead(502);
    return res.end();
  }
  sessions.delete(sid(req));
  const id = randomBytes(18).toString('base64url');
  sessions.set(id, { user: tokens.user });
  res.writeHead(302, { location: '/me', 'set-cookie': `sid=${id}; HttpOnly` });
  res.end();
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`ready ${server.address().port}`));
