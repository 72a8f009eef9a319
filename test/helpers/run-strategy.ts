import type { Request } from 'express';
import {
  type KudosAuthenticateOptions,
  KudosStrategy,
  type KudosStrategyOptionsBase,
} from '../../src/index.js';

/** What one authenticate() call ended with. */
export type StrategyOutcome =
  | { action: 'success'; user: unknown; info: unknown }
  | { action: 'fail'; challenge: unknown; status: number | undefined }
  | { action: 'error'; error: unknown }
  | { action: 'redirect'; url: string };

/**
 * Runs `authenticate` the way Passport does: on `Object.create(strategy)` with the action
 * functions added, and resolves with the first action the strategy took.
 */
export function runStrategy(
  strategy: KudosStrategy,
  req: Partial<Request> & { url: string },
  options?: KudosAuthenticateOptions,
): Promise<StrategyOutcome> {
  return new Promise((resolve) => {
    const instance = Object.create(strategy) as KudosStrategy & Record<string, unknown>;
    instance.success = (user: unknown, info: unknown) => resolve({ action: 'success', user, info });
    instance.fail = (challenge: unknown, status?: number) => resolve({ action: 'fail', challenge, status });
    instance.error = (error: unknown) => resolve({ action: 'error', error });
    instance.redirect = (url: string) => resolve({ action: 'redirect', url });
    const request = {
      headers: { host: 'app.test' },
      session: {},
      socket: {},
      connection: {},
      ...req,
    } as unknown as Request;
    instance.authenticate(request, options);
  });
}

/** A strategy at `http://kudos.test` whose verify logs in `{ id }`; `extra` overrides any option. */
export function testStrategy(extra: Partial<KudosStrategyOptionsBase> = {}): KudosStrategy {
  return new KudosStrategy(
    {
      clientID: 'c',
      clientSecret: 's',
      callbackURL: '/callback',
      authURL: 'http://kudos.test',
      baseURL: 'http://kudos.test/api',
      ...extra,
    },
    (_a, _r, profile, done) => done(null, { id: profile.id }),
  );
}
