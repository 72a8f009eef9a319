import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Sessions never share the payments' Redis (docs/scaling.md#sessions-in-another-redis): the README's
// Redis set-up (docs/snippets/redis.ts) and the example's Redis mode keep them on another client.
describe('the Redis set-ups keep sessions apart from payments', () => {
  it('the README’s snippet: connect-redis on its own client, of REDIS_SESSIONS_URL', () => {
    const code = readFileSync('docs/snippets/redis.ts', 'utf8');
    const sessionsClient = /new RedisStore\(\{ client: (\w+)/.exec(code)?.[1];
    const paymentsClients = [...code.matchAll(/new Redis(?:Dedupe|Order)Store\((\w+)/g)].map((m) => m[1]);
    expect(paymentsClients).toHaveLength(2);
    expect(new Set(paymentsClients).size).toBe(1);
    expect(sessionsClient).toBeDefined();
    expect(paymentsClients).not.toContain(sessionsClient);
    expect(code).toMatch(
      new RegExp(`const ${sessionsClient} = createClient\\(\\{ url: process\\.env\\.REDIS_SESSIONS_URL`),
    );
    expect(readFileSync('README.md', 'utf8')).toMatch(/sessions in another Redis, which may evict/);
  });

  it('the example: sessions on REDIS_SESSIONS_URL, never on the payments’ client', () => {
    const code = readFileSync('example/redis-stores.js', 'utf8');
    expect(code).toMatch(/sessionsClient = createClient\(\{ url, \.\.\.CONNECTION \}\)/);
    expect(code).toMatch(/new AccountCappedRedisStore\(\{ client: sessionsClient/);
    expect(code).toMatch(/session: sessions\.store/);
    expect(code).not.toMatch(/new RedisStore\(\{ client: \/\*\* @type \{any\} \*\/ \(client\)/);
  });
});
