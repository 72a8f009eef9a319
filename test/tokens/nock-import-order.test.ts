// node:https's ES module face is made here, before nock loads and patches the module: as in an app's
// test file that imports a module using https (the emulator, a client) above nock.
import 'node:https';
import nock from 'nock';
import { afterEach, expect, it } from 'vitest';
import { KudosStrategy } from '../../src/index.js';

// The library's requests are intercepted by a test's nock whatever the order of its imports: the
// HTTP client reads https.request when it sends, not a copy taken when it was loaded.
afterEach(() => {
  nock.cleanAll();
});

it('refreshes through a nock interceptor registered after node:https was imported', async () => {
  const token = nock('https://kudos.test').post('/api/oauth/access_token').reply(200, {
    user: 'alice',
    access_token: 'new-at',
    refresh_token: 'new-rt',
  });
  const strategy = new KudosStrategy(
    {
      clientID: 'app',
      clientSecret: 'app-secret',
      callbackURL: 'http://127.0.0.1/callback',
      authURL: 'https://kudos.test',
      baseURL: 'https://kudos.test/api',
    },
    (_a, _r, _p, done) => done(null, {}),
  );
  expect(await strategy.refresh('old-rt')).toMatchObject({ accessToken: 'new-at', refreshToken: 'new-rt' });
  expect(token.isDone()).toBe(true);
});
