import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isObjectLike, isRecord } from '../../src/guards.js';
import { BodyTooLargeError, readCapped } from '../../src/read-capped.js';
import { redactSecrets, secretForms } from '../../src/redact.js';
import { readServiceError } from '../../src/service-error.js';
import { withoutTrailingSlashes } from '../../src/url-path.js';

describe('readServiceError: one rule for the token endpoint and the API', () => {
  it.each([
    ['INVALID_CLIENT_CRED', { code: 'INVALID_CLIENT_CRED' }],
    ['  TOKEN_EXPIRED\n', { code: 'TOKEN_EXPIRED' }],
    ['{"error":"invalid_grant"}', { code: 'invalid_grant' }],
    ['{"error":"invalid_client","error_description":"bad"}', { code: 'invalid_client', description: 'bad' }],
  ])('reads %j', (body, expected) => {
    expect(readServiceError(body)).toEqual(expected);
  });

  it.each([
    ['invalid_grant'], // plain text must be the service's upper-case word
    ['X'], // one letter is no code
    ['<html>500</html>'],
    ['{"error":"<img>"}'],
    ['{"error":"1abc"}'],
    ['{"error":42}'],
    ['[1,2]'],
    [''],
  ])('finds no code in %j', (body) => {
    expect(readServiceError(body)).toBeUndefined();
  });
});

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

  it('secretForms lists raw, URL-encoded (both hex cases), form-encoded and JSON-escaped forms', () => {
    expect(secretForms('a b/"c')).toEqual(
      expect.arrayContaining([
        'a b/"c',
        'a%20b%2F%22c',
        'a%20b%2f%22c',
        'a+b%2F%22c',
        'a+b%2f%22c',
        'a b/\\"c',
      ]),
    );
    expect(redactSecrets('x=a+b%2f%22c;', ['a b/"c'])).toBe('x=[REDACTED];');
  });

  it('withoutTrailingSlashes', () => {
    expect(withoutTrailingSlashes('http://k.test/api///')).toBe('http://k.test/api');
    expect(withoutTrailingSlashes('/')).toBe('');
  });
});
