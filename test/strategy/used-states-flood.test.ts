import { describe, expect, it } from 'vitest';
import { KudosCookieStateStore } from '../../src/index.js';

// A flood of anonymous sign-ins, each started and called back, against the default memory of used
// states (in process: the HTTP around it adds nothing to what the store holds). A used state must
// stay used for its whole life whatever the flood: past what the memory holds, callbacks are refused
// loudly, never a live state forgotten (its replay would sign someone in again). Its own file, in the
// integration project: 200,000 encrypted cookies are seconds of work.

const SECRET = 'cookie-state-test-secret-0123456789-abcdef';
const META = { callbackURL: 'http://localhost:3000/auth/kudos/callback' };

/** One sign-in's start: the state handed to the authorization page, and the cookie the browser keeps. */
function startSignIn(store: KudosCookieStateStore): { handle: string; cookie: string } {
  let set: string[] = [];
  const res = {
    getHeader: () => undefined,
    setHeader: (_name: string, value: string[]) => {
      set = value;
      return res;
    },
  };
  let handle = '';
  store.store({ headers: {}, res } as never, undefined, undefined, META, (_err, h) => {
    handle = h ?? '';
  });
  const last = set.at(-1) ?? '';
  return { handle, cookie: last.slice(0, last.indexOf(';')) };
}

/** Its callback: what the store called back (error, ok). */
function callBack(store: KudosCookieStateStore, started: { handle: string; cookie: string }) {
  const res = { getHeader: () => undefined, setHeader: () => res };
  return new Promise<[Error | null, unknown]>((resolve) => {
    store.verify({ headers: { cookie: started.cookie }, res } as never, started.handle, META, (err, ok) =>
      resolve([err, ok]),
    );
  });
}

describe('the used states under a flood of sign-ins', () => {
  it('200,000 start-and-callback pairs leave a used state used: past 100,000 live ones a callback is refused (used_states_full, 503)', async () => {
    let now = Date.now();
    const store = new KudosCookieStateStore({ secret: SECRET, now: () => now });
    const target = startSignIn(store);
    expect(await callBack(store, target)).toEqual([null, true]);
    let accepted = 0;
    let refused: Error | null = null;
    for (let i = 0; i < 200_000; i++) {
      const [error, ok] = await callBack(store, startSignIn(store));
      if (ok === true) accepted++;
      else refused ??= error;
    }
    expect(accepted).toBe(99_999); // with the target: 100,000 remembered, each for its whole life
    expect(refused).toMatchObject({ name: 'KudosError', code: 'used_states_full', status: 503 });
    expect(refused?.message).toContain('"usedStates"');
    // The target replayed within its 10 minutes: still refused, as passport-oauth2's store refuses one.
    expect(await callBack(store, target)).toEqual([null, false]);
    // Once they expired, sign-ins go through again.
    now += 11 * 60 * 1000;
    expect(await callBack(store, startSignIn(store))).toEqual([null, true]);
  }, 180_000);
});
