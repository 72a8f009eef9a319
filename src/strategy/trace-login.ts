import {
  codeOf,
  isTraced,
  type KudosAuthorizeMessage,
  type KudosCallbackMessage,
  KudosTokenError,
  traced,
  traceURL,
} from 'kudos-core';

/** Passport's actions on the per-request strategy object, as the login ends with one of them. */
interface PassportActions {
  success(user: unknown, info?: unknown): void;
  fail(challenge?: unknown, status?: number): void;
  error(err: Error): void;
  redirect(url: string, status?: number): void;
  pass(): void;
}

/** What the login step is: the redirect to the authorization page, or the callback (and which kind). */
export type LoginStep =
  | { kind: 'authorize'; authorizationURL: string; scope: string }
  | { kind: 'callback'; declined: boolean };

type LoginMessage = KudosAuthorizeMessage | KudosCallbackMessage;

/** How a callback's `fail()` reads: the user declined, the state did not match (403), or verify said no. */
function failure(step: LoginStep, status: number | undefined): 'denied' | 'state_mismatch' | 'failure' {
  if (step.kind === 'callback' && step.declined) return 'denied';
  return status === 403 ? 'state_mismatch' : 'failure';
}

/**
 * Runs one login step as a traced operation (`passport-kudos:authorize` or `passport-kudos:callback`):
 * `run` gets a strategy object whose Passport actions first record the outcome, then act as
 * Passport's own. The operation ends at that action. With no subscriber, `run` gets the strategy
 * itself, and `describe` is not called.
 */
export function traceLogin<S extends PassportActions>(
  strategy: S,
  operation: LoginStep['kind'],
  describe: () => LoginStep,
  run: (target: S) => void,
): void {
  if (!isTraced(operation)) {
    run(strategy);
    return;
  }
  let step: LoginStep | undefined;
  const make = (): LoginMessage => {
    step = describe();
    return step.kind === 'authorize'
      ? { operation: 'authorize', authorizationURL: traceURL(step.authorizationURL), scope: step.scope }
      : { operation: 'callback' };
  };
  traced<LoginStep['kind'], void>(operation, make, (message) => {
    // No message only without a subscriber, which isTraced() ruled out just before: untraced all the same.
    if (!message) {
      run(strategy);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const set = (outcome: string, code?: string) => {
        (message as { outcome?: string }).outcome = outcome;
        if (code !== undefined) message.code = code;
      };
      // Passport gives each request its own strategy object; this one inherits from it and only
      // records how the step ended before handing over.
      const target: S = Object.create(strategy);
      target.success = (user, info) => {
        set('success');
        resolve();
        strategy.success(user, info);
      };
      target.fail = (challenge, status) => {
        set(step ? failure(step, status) : 'failure');
        resolve();
        strategy.fail(challenge, status);
      };
      target.redirect = (url, status) => {
        set('redirect');
        resolve();
        strategy.redirect(url, status);
      };
      target.pass = () => {
        resolve();
        strategy.pass();
      };
      target.error = (err) => {
        set(
          err instanceof KudosTokenError && operation === 'callback' ? 'token_error' : 'error',
          codeOf(err),
        );
        reject(err);
        strategy.error(err);
      };
      run(target);
    });
  }).catch(() => {
    // The failure was handed to Passport's error(); the rejection only ends the traced operation.
  });
}
