import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isObjectLike, isRecord } from '../../src/base/guards.js';
import { BodyTooLargeError, readCapped } from '../../src/base/read-capped.js';
import { redactSecrets, redactWebhookURL } from '../../src/base/redact.js';
import { withoutTrailingSlashes } from '../../src/base/url-path.js';

describe('readCapped', () => {
  it('reads a Node stream whole under the cap, and rejects past it', async () => {
    expect(
      (await readCapped(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 4, 'reject')).toString(),
    ).toBe('abcd');
    await expect(
      readCapped(Readable.from([Buffer.from('abc'), Buffer.from('de')]), 4, 'reject'),
    ).rejects.toBeInstanceOf(BodyTooLargeError);
  });

  it('truncates a web stream at the cap and cancels it', async () => {
    let cancelled = false;
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10).fill(65));
      },
      cancel() {
        cancelled = true;
      },
    });
    const body = await readCapped(stream, 25, 'truncate');
    expect(body.toString()).toBe('A'.repeat(25));
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(6);
  });

  it('passes a stream error on', async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('aborted'));
      },
    });
    await expect(readCapped(failing, 100, 'reject')).rejects.toThrow('aborted');
  });
});

describe('guards, redaction and URL helpers', () => {
  it('isRecord takes plain objects only; isObjectLike arrays too', () => {
    expect([{}, [], null, 'x', 1].map(isRecord)).toEqual([true, false, false, false, false]);
    expect([{}, [], null, 'x', 1].map(isObjectLike)).toEqual([true, true, false, false, false]);
  });

  it('redactSecrets finds the raw, URL-encoded (both hex cases), form-encoded and JSON-escaped forms', () => {
    for (const form of ['a b/"c', 'a%20b%2F%22c', 'a%20b%2f%22c', 'a+b%2F%22c', 'a+b%2f%22c', 'a b/\\"c']) {
      expect(redactSecrets(`x=${form};`, ['a b/"c']), form).toBe('x=[REDACTED];');
    }
    expect(redactSecrets('x=a+b%2f%22c;', ['a b/"c'])).toBe('x=[REDACTED];');
  });

  it.each([
    // the receiver's rule (minSegment 1): the last segment, unless ?token= carried the secret
    ['/webhooks/kudos/s3cr3t-s3cr3t-s3cr3t', 1, '/webhooks/kudos/REDACTED'],
    ['/webhooks/kudos?token=s3cr3t&x=1', 1, '/webhooks/kudos?token=REDACTED&x=1'],
    ['/webhooks/kudos?Token=s3cr3t', 1, '/webhooks/REDACTED?Token=REDACTED'],
    ['//', 1, '//'],
    // the emulator's rule (16): only a segment long enough to be a secret
    ['http://user:pw@127.0.0.1:9/webhooks/kudos', 16, 'http://127.0.0.1:9/webhooks/kudos'],
    ['http://127.0.0.1:9/h/0123456789abcdef/', 16, 'http://127.0.0.1:9/h/REDACTED/'],
    [
      'https://shop.test/h?secret=a&KEY=b&signature=c&access_token=d&keep=e',
      16,
      'https://shop.test/h?secret=REDACTED&KEY=REDACTED&signature=REDACTED&access_token=REDACTED&keep=e',
    ],
    ['http://127.0.0.1:9/hook#token=s3cr3t', 16, 'http://127.0.0.1:9/hook#REDACTED'],
    // a backslash is a slash to a URL parser (the secret is sent as the path): redacted alike
    ['http://127.0.0.1:3001\\0123456789abcdef', 16, 'http://127.0.0.1:3001/REDACTED'],
    [
      'http://127.0.0.1:3001\\hooks\\0123456789abcdef?keep=a\\b',
      16,
      'http://127.0.0.1:3001/hooks/REDACTED?keep=a\\b',
    ],
  ])('redactWebhookURL(%j, %i)', (url, minSegment, shown) => {
    expect(redactWebhookURL(url, minSegment)).toBe(shown);
  });

  it('withoutTrailingSlashes', () => {
    expect(withoutTrailingSlashes('http://k.test/api///')).toBe('http://k.test/api');
    expect(withoutTrailingSlashes('/')).toBe('');
  });
});
