import { describe, expect, it } from 'vitest';
import { isLocalPath } from '../../example/app.js';
import { redactSecrets, redactWebhookURL } from '../../packages/kudos-core/src/base/redact.js';
import { withoutTrailingSlashes } from '../../packages/kudos-core/src/base/url-path.js';
import type { WebhookRequest } from '../../packages/kudos-payments/src/core/body.js';
import { redactRequest, secretMatches } from '../../packages/kudos-payments/src/core/secret.js';
import { resolveCallbackURL } from '../../src/callback/callback-url.js';
import { readCallbackParams } from '../../src/callback/params.js';
import { readBodyText } from '../helpers/notifications.js';

// Every function that reads request data, fed 100,000-character hostile inputs. These assert the
// answers; how the time grows with the length is measured by `npm run bench` (its section 7), not here.
const N = 100_000;

function webhookRequest(url: string, headers: Record<string, string>): WebhookRequest {
  return { url, headers } as unknown as WebhookRequest;
}

/** The receiver's two steps on a Node request: the secret check, then the redaction. */
function checkSecret(req: WebhookRequest, secrets: readonly string[]): boolean {
  const ok = secretMatches(req.url ?? '/', req.headers.authorization, secrets);
  redactRequest(req, secrets);
  return ok;
}

describe('request data of 100,000 characters', () => {
  it('resolveCallbackURL: a forwarded protocol of spaces and commas', () => {
    const callbackURL = (proto: string) =>
      resolveCallbackURL(
        '/cb',
        { url: '/', headers: { host: 'app.test', 'x-forwarded-proto': proto }, socket: {} } as never,
        true,
      );
    expect(callbackURL(`https${' '.repeat(N)},http`)).toBe('https://app.test/cb');
    expect(callbackURL(`${' ,'.repeat(N / 2)}`)).toBe('http://app.test/cb');
    expect(callbackURL(' '.repeat(N))).toBe('http://app.test/cb');
  });

  it('resolveCallbackURL: a forwarded host of commas and spaces', () => {
    const req = {
      url: '/login',
      headers: { host: 'app.test', 'x-forwarded-host': `a${' , '.repeat(N / 3)}` },
      socket: {},
    };
    expect(resolveCallbackURL('/cb', req as never, true)).toBe('http://a/cb');
  });

  it('readCallbackParams: a query of repeated names', () => {
    expect(readCallbackParams({ url: `/cb?${'code=a&'.repeat(N / 7)}` })).toMatchObject({ kind: 'invalid' });
    expect(readCallbackParams({ url: `/cb?code=${'a'.repeat(N)}` })).toMatchObject({ kind: 'invalid' });
    expect(readCallbackParams({ url: `/cb?error=${'<'.repeat(N)}` })).toMatchObject({ kind: 'error' });
  });

  it('redactWebhookURL and checkSecret: paths without or of only slashes', () => {
    expect(redactWebhookURL(`/hooks/${'a'.repeat(N)}/`)).toBe('/hooks/REDACTED/');
    expect(redactWebhookURL(`/${'/'.repeat(N)}`)).toBe(`/${'/'.repeat(N)}`); // read as a host by new URL()
    expect(checkSecret(webhookRequest('//', {}), ['the-right-secret-0123'])).toBe(false);
    const secrets = ['the-right-secret-0123'];
    expect(checkSecret(webhookRequest(`/h/${'a'.repeat(N)}`, {}), secrets)).toBe(false);
    expect(checkSecret(webhookRequest(`/h?${'token=x&'.repeat(N / 8)}`, {}), secrets)).toBe(false);
    const basic = `Basic ${'QUFB'.repeat(N / 4)}`;
    expect(checkSecret(webhookRequest('/h/x', { authorization: basic }), secrets)).toBe(false);
  });

  it('the webhook body reader: a content type of plus signs and of parameters', async () => {
    await expect(readBodyText('{}', `application/${'+'.repeat(N)}x`)).rejects.toMatchObject({
      code: 'unsupported_media_type',
    });
    await expect(readBodyText('{}', `application/json${';'.repeat(N)}`)).resolves.toEqual({});
  });

  it('withoutTrailingSlashes and redactSecrets: slashes and near-misses', () => {
    expect(withoutTrailingSlashes(`http://k.test${'/'.repeat(N)}`)).toBe('http://k.test');
    expect(withoutTrailingSlashes(`${'/'.repeat(N)}x`)).toBe(`${'/'.repeat(N)}x`);
    expect(redactSecrets(`${'secre'.repeat(N / 5)}secret`, ['secret'])).toBe(
      `${'secre'.repeat(N / 5)}[REDACTED]`,
    );
  });

  it('isLocalPath (example): a long path is refused', () => {
    expect(isLocalPath(`/${'a'.repeat(N)}`)).toBe(false);
    expect(isLocalPath(`/${' '.repeat(N)}`)).toBe(false);
    expect(isLocalPath('/profile')).toBe(true);
  });
});
