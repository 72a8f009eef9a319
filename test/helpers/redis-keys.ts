import type { createClient } from 'redis';

/** Every key under `prefix` with its PTTL in milliseconds (-1: none), read by SCAN. */
export async function keyTtls(
  client: ReturnType<typeof createClient>,
  prefix: string,
): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
    for (const key of [keys].flat()) found.set(key, await client.pTTL(key));
  }
  return found;
}
