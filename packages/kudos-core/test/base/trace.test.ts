import { tracingChannel } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import { KUDOS_TRACE_CHANNELS, kudosChannel, traced, traceURL } from '../../src/base/trace.js';

describe('traced(): one operation on its tracing channel', () => {
  it('with no subscriber, builds no message and runs the work as it is', async () => {
    expect(kudosChannel('api').hasSubscribers).toBe(false);
    let built = 0;
    let given: unknown = 'unset';
    const value = await traced(
      'api',
      () => {
        built++;
        return { operation: 'api', method: 'GET', path: '/x', url: 'http://h/x' };
      },
      async (message) => {
        given = message;
        return 42;
      },
    );
    expect([value, built, given]).toEqual([42, 0, undefined]);
  });

  it('with a subscriber: the message is filled in, the value is never the channel’s result, a rejection records its code', async () => {
    const seen: Array<Record<string, unknown>> = [];
    const subscriber = { asyncEnd: (m: object) => seen.push({ ...m }) };
    const channel = tracingChannel(KUDOS_TRACE_CHANNELS.refresh);
    channel.subscribe(subscriber as never);
    try {
      const value = await traced(
        'refresh',
        () => ({ operation: 'refresh', method: 'POST', url: 'http://h/token' }),
        async (message) => {
          if (message) message.statusCode = 200;
          return { accessToken: 'a-token-no-subscriber-may-see' };
        },
      );
      expect(value).toEqual({ accessToken: 'a-token-no-subscriber-may-see' });
      const failure = Object.assign(new Error('refused'), { code: 'not_a_kudos_error' });
      await expect(
        traced(
          'refresh',
          () => ({ operation: 'refresh', method: 'POST', url: 'http://h/token' }),
          () => Promise.reject(failure),
        ),
      ).rejects.toBe(failure);
    } finally {
      channel.unsubscribe(subscriber as never);
    }
    expect(seen[0]).toEqual({
      operation: 'refresh',
      method: 'POST',
      url: 'http://h/token',
      statusCode: 200,
      result: undefined,
    });
    // Only a KudosError's code is read: anything else is an error without a code.
    expect(seen[1]).toMatchObject({ outcome: 'error', error: expect.any(Error) });
    expect(seen[1]?.code).toBeUndefined();
  });

  it('traceURL keeps the origin and path only: no credentials, query or fragment', () => {
    expect(traceURL('https://user:pw@kudos.example:8443/oauth/token?client_secret=s#f')).toBe(
      'https://kudos.example:8443/oauth/token',
    );
    expect(traceURL('not a url')).toBe('');
  });
});
