// One bounded load run with autocannon, on 127.0.0.1 only.
import autocannon from 'autocannon';

/**
 * Sends exactly `amount` requests (at most `maxSeconds`) with `connections` keep-alive connections.
 * `setupRequest(req, i)` shapes request i. Resolves with requests/s and latency p50/p99 in ms.
 * @param {{ url: string, amount: number, connections?: number, maxSeconds?: number, method?: string,
 *   setupRequest: (req: Record<string, unknown>, i: number) => Record<string, unknown>, expectStatus: number }} options
 */
export async function load({
  url,
  amount,
  connections = 16,
  maxSeconds = 30,
  method = 'GET',
  setupRequest,
  expectStatus,
}) {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error('load runs target 127.0.0.1 only');
  let i = 0;
  const started = process.hrtime.bigint();
  const result = await autocannon({
    url,
    amount,
    connections: Math.min(connections, amount),
    duration: maxSeconds,
    // autocannon notices a finished count-bounded run only at its sample tick: tick every 20 ms,
    // not every second, so a run is not padded to whole seconds.
    sampleInt: 20,
    method,
    requests: [{ setupRequest: (req) => setupRequest(req, i++) }],
  });
  const expected = result.statusCodeStats?.[String(expectStatus)]?.count ?? 0;
  if (result.errors > 0 || result.timeouts > 0 || expected !== result.requests.total) {
    throw new Error(
      `load run on ${url}: ${result.requests.total} requests, ${expected} answered ${expectStatus}, ${result.errors} errors, ${result.timeouts} timeouts (${JSON.stringify(result.statusCodeStats)})`,
    );
  }
  // Timed here: autocannon's own start/finish have too coarse a resolution for short bounded runs.
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { rps: result.requests.total / seconds, p50: result.latency.p50, p99: result.latency.p99 };
}
