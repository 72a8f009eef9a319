// 4. Refresh storm: 100 concurrent API calls for one user whose access token expired. Counts the
// requests that reach the token endpoint with createKudosClient, and with passport-oauth2-refresh
// called naively once per request.

import { startKudosEmulator } from 'kudos-emulator';
import {
  createKudosClient,
  KudosStrategy,
  MemoryTokenStore,
  toTokenSet,
  validateTokenResponse,
} from 'passport-kudos';
import refresh from 'passport-oauth2-refresh';

const CLIENT = { clientID: 'bench', clientSecret: 'bench-secret', redirectURIs: ['http://127.0.0.1/cb'] };

async function signIn(kudos) {
  const { code } = kudos.authorize({ clientID: 'bench', user: 'alice' });
  const res = await fetch(kudos.tokenURL, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      client_id: 'bench',
      client_secret: 'bench-secret',
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'http://127.0.0.1/cb',
    }),
  });
  return toTokenSet(validateTokenResponse(await res.json()));
}

async function withEmulator(fn) {
  const kudos = await startKudosEmulator({ clients: [CLIENT] });
  try {
    const strategy = new KudosStrategy(
      {
        clientID: 'bench',
        clientSecret: 'bench-secret',
        callbackURL: '/cb',
        authURL: kudos.authURL,
        baseURL: kudos.baseURL,
      },
      (_a, _r, _p, done) => done(null, {}),
    );
    const tokens = await signIn(kudos);
    kudos.advanceClock(3600 * 1000 + 1000);
    return await fn({ kudos, strategy, tokens });
  } finally {
    await kudos.close();
  }
}

/** @param {{ calls: number }} options */
export async function benchRefreshStorm({ calls }) {
  const client = await withEmulator(async ({ kudos, strategy, tokens }) => {
    const store = new MemoryTokenStore();
    await store.set('alice', tokens);
    const api = createKudosClient({
      strategy,
      tokens: store,
      baseURL: kudos.baseURL,
      now: () => kudos.now(),
    });
    const answers = await Promise.allSettled(
      Array.from({ length: calls }, () => api.fetch('alice', '/v1/me')),
    );
    return {
      refreshRequests: kudos.counters.refreshGrants,
      succeeded: answers.filter((a) => a.status === 'fulfilled').length,
    };
  });
  const naive = await withEmulator(async ({ kudos, strategy, tokens }) => {
    refresh.use(strategy);
    const call = () =>
      new Promise((resolve) =>
        refresh.requestNewAccessToken('kudos', tokens.refreshToken, async (err, accessToken) => {
          if (err) return resolve(false);
          const res = await fetch(`${kudos.baseURL}/v1/me`, {
            headers: { authorization: `Bearer ${accessToken}` },
          });
          resolve(res.ok);
        }),
      );
    const answers = await Promise.all(Array.from({ length: calls }, call));
    return { refreshRequests: kudos.counters.refreshGrants, succeeded: answers.filter(Boolean).length };
  });
  return { calls, createKudosClient: client, naivePassportOauth2Refresh: naive };
}
