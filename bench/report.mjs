// Writes results.json and regenerates BENCHMARKS.md from them (and bench/notes.md, the analysis).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pairedRatio, ratio } from './lib/stats.mjs';

const fmt = (n, digits = 0) =>
  typeof n === 'number'
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : String(n);
const cell = (s, digits) => `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
/** ` at load L on N CPUs`: the machine's 1-minute load average as a section began; nothing if unknown. */
const loadNote = (load) => (load ? ` at load ${fmt(load.before, 2)} on ${load.cpus} CPUs` : '');
const kb = (bytes) => `${fmt(bytes / 1024, 1)} kB`;

/**
 * The rows of a section measured with a subscriber of the tracing channels (their names start with
 * `prefix` and say which), as paired ratios to `unwatched`, the same app without one, in the same run.
 */
function watched(rows, unwatched, prefix) {
  const with_ = rows.filter((r) => r !== unwatched && r.name.startsWith(prefix));
  if (with_.length === 0) return [];
  return [
    '',
    `With a subscriber, against the same app without one in the same runs (median of the runs’ ratios): ${with_
      .map((r) => `${r.name.slice(prefix.length)}: ${pairedRatio(r.rps.runs, unwatched.rps.runs)}x`)
      .join('; ')}.`,
  ];
}

/** Adds the goals and their outcome, computed from the medians of the same run. */
export function withGoals(results) {
  const goals = [];
  if (results.login) {
    const [kudos, anchor] = results.login;
    // Paired: each run measures both apps back to back, so the ratio of each run cancels the
    // machine's drift between runs; their median is the figure (the medians' ratio is in section 1).
    const r = pairedRatio(kudos.rps.runs, anchor.rps.runs);
    // Ahead of the class it extends: its token request is its own (keep-alive, time limits, caps).
    goals.push({
      goal: 'login callback ≥ 1.05x the anchor (requests/s, median of the runs’ ratios)',
      value: `${r}x`,
      met: r >= 1.05,
    });
  }
  if (results.coldStart) {
    const by = Object.fromEntries(results.coldStart.map((c) => [c.name, c.ms.median]));
    const kudos = results.coldStart.find((c) => c.name === "require('passport-kudos')");
    // Paired (each spawn against passport-oauth2's of the same run) when the run measured it.
    const extra =
      kudos?.pairedMs?.median ?? by["require('passport-kudos')"] - by["require('passport-oauth2')"];
    goals.push({
      goal: "require('passport-kudos') ≤ 2 ms more than require('passport-oauth2') (whole process, median of the paired spawns' differences)",
      value: `${fmt(extra, 1)} ms`,
      met: extra <= 2,
    });
    if (by["import('passport-oauth2')"] !== undefined) {
      const esm = by["import('passport-kudos')"] - by["import('passport-oauth2')"];
      goals.push({
        goal: "import('passport-kudos') ≤ 5 ms more than import('passport-oauth2')",
        value: `${fmt(esm, 1)} ms`,
        met: esm <= 5,
      });
    }
  }
  if (results.webhook) {
    const r = ratio(results.webhook[1].rps.median, results.webhook[0].rps.median);
    goals.push({
      goal: 'kudosWebhook ≥ 0.8x a bare express.json() route (notifications/s)',
      value: `${r}x`,
      met: r >= 0.8,
    });
    // The bookkeeping of unprocessed notifications (a keep before each handler, a forget at the end)
    // against the receiver before it: each measured as a ratio to the same bare route, in its own run.
    if (results.webhookBeforeRecovery) {
      const before = results.webhookBeforeRecovery;
      const was = ratio(before[1].rps.median, before[0].rps.median);
      const change = Math.round((r / was) * 1000) / 1000;
      goals.push({
        goal: 'kudosWebhook with the unprocessed bookkeeping ≥ 0.9x the receiver before it (each as a ratio to the bare route)',
        value: `${change}x (${r}x now, ${was}x before)`,
        met: change >= 0.9,
      });
    }
  }
  if (results.stateFile) {
    const { rows, ratio } = results.stateFile;
    goals.push({
      goal: `emulator --state: a change at ${fmt(rows[1].transactions)} transactions costs ≤ 2x one at ${fmt(rows[0].transactions)}`,
      value: `${ratio}x`,
      met: ratio <= 2,
    });
  }
  for (const row of (results.health ?? []).filter((r) => r.store !== 'MemoryOrderStore')) {
    goals.push({
      goal: `status() with ${fmt(row.exceptions)} exceptions ≤ 5 ms a call (${row.store})`,
      value: `${fmt(row.statusMs.median, 2)} ms`,
      met: row.statusMs.median <= 5,
    });
  }
  if (results.recovery) {
    const perKept = results.recovery.redriveMs.median / results.recovery.kept;
    goals.push({
      goal: `redrive() of ${fmt(results.recovery.kept)} kept notifications ≤ 50 µs each (MemoryDedupeStore, a no-op handler)`,
      value: `${fmt(perKept * 1000, 1)} µs`,
      met: perKept * 1000 <= 50,
    });
  }
  if (results.refreshStorm) {
    const n = results.refreshStorm.createKudosClient.refreshRequests;
    goals.push({
      goal: '100 concurrent calls with an expired token: 1 refresh request',
      value: String(n),
      met: n === 1,
    });
  }
  if (results.dedupe) {
    const r = results.dedupe.ratio;
    const [few, many] = results.dedupe.sizes;
    goals.push({
      goal: `MemoryDedupeStore cost per notification at ${fmt(many.keys)} keys ≤ 1.5x at ${fmt(few.keys)}`,
      value: `${r}x`,
      met: r <= 1.5,
    });
  }
  if (results.linear) {
    const worst = Math.max(...results.linear.map((row) => row.ratio));
    goals.push({
      goal: 'hostile request data: 10x longer input costs ≤ 20x the time (linear, not quadratic)',
      value: `${worst}x at worst`,
      met: worst <= 20,
    });
  }
  if (results.emulator) {
    const r = results.emulator.ratio;
    goals.push({
      goal: 'Kudos emulator ≥ 5x oauth2-mock-server (code exchanges/s)',
      value: `${r}x`,
      met: r >= 5,
    });
  }
  if (results.payments) {
    const label = { memory: 'in-memory', sqlite: 'SQLite', redis: 'Redis' };
    for (const store of ['memory', 'sqlite', 'redis']) {
      const [base, payments] = ['webhook', 'payments'].map((mode) =>
        results.payments.find((p) => p.store === store && p.mode === mode),
      );
      if (!base || !payments) continue;
      // Each run measures the pair back to back: the median of the runs' own ratios, as for the
      // login goal (this machine's speed drifts more between runs than the difference measured).
      const r = pairedRatio(payments.rps.runs, base.rps.runs);
      goals.push({
        goal: `kudosPayments ≥ 0.9x kudosWebhook + cosmosConfirmer alone, ${label[store]} stores (notifications/s, median of the runs’ ratios)`,
        value: `${r}x`,
        met: r >= 0.9,
      });
    }
  }
  if (results.chainScan) {
    const c = results.chainScan;
    goals.push({
      goal: `reconcileChain() with nothing new among ${fmt(c.window)} transfers in the window: ≤ 4 requests (both spellings of the wallet)`,
      value: String(c.nothingNew.requests),
      met: c.nothingNew.requests <= 4,
    });
    goals.push({
      goal: `reconcileChain() with ${fmt(c.window)} transfers in the window: the first run reads each page once (≤ ${fmt(c.pages + 1)} requests)`,
      value: String(c.first.requests),
      met: c.first.requests <= c.pages + 1,
    });
  }
  return { ...results, goals };
}

export function markdown(results) {
  const lines = [
    '# Benchmarks',
    '',
    'Generated by `npm run bench` (do not edit by hand; the analysis comes from `bench/notes.md`).',
    `Every figure is the median of ${results.runs} runs (more where a section says so), with min–max; ratios compare medians measured in the same run.`,
    'All traffic stays on 127.0.0.1; every load run is bounded by a request count and a time limit.',
    '',
    `Machine: ${results.machine.cpu}, ${results.machine.cores} cores, ${fmt(results.machine.memoryGiB, 1)} GiB; Node ${results.machine.node}; ${results.date}.`,
    '',
    '## Goals',
    '',
    '| goal | measured | met |',
    '|---|---|---|',
    ...results.goals.map((g) => `| ${g.goal} | ${g.value} | ${g.met ? 'yes' : '**no**'} |`),
  ];
  if (results.login) {
    const anchor = results.login[1];
    lines.push(
      '',
      `## 1. Login callback (${fmt(results.loginAmount)} callbacks per run, ${results.login[0].rps.runs.length} runs)`,
      '',
      `Full callback: session state check, token exchange with a local token server, profile, session login (Express 5, express-session, passport 0.7). Each run starts every app afresh, warms each up alike, and measures them in turn (the order rotated): a Node process has a speed of its own, so each figure is made of as many processes as runs. The ratio below is of the medians; the goal takes the median of the runs’ own ratios. CPU is the app process's own CPU time per callback (from \`/proc\`), and its ratio is the anchor's over the app's, median of the runs' ratios: above 1 costs less.${results.loginCores ? ` The apps run on core ${results.loginCores.apps}, the load generator and the token server on core${results.loginCores.rest.length > 1 ? 's' : ''} ${results.loginCores.rest} (\`taskset\`), so that a run's figure is the app's own cost rather than the scheduler's sharing of the cores.` : ''}`,
      '',
      '| app | ratio to anchor | requests/s | CPU µs per callback | CPU ratio | p50 ms | p99 ms |',
      '|---|---|---|---|---|---|---|',
      ...results.login.map(
        (a) =>
          `| ${a.name} | ${ratio(a.rps.median, anchor.rps.median)}x | ${cell(a.rps)} | ${a.cpuMicros ? cell(a.cpuMicros) : '—'} | ${a.cpuMicros && anchor.cpuMicros ? `${pairedRatio(anchor.cpuMicros.runs, a.cpuMicros.runs)}x` : '—'} | ${cell(a.p50)} | ${cell(a.p99)} |`,
      ),
      ...watched(results.login, results.login[0], 'KudosStrategy, '),
    );
  }
  if (results.coldStart) {
    const base = results.coldStart.find((c) => c.name.startsWith("require('passport-oauth2')")).ms.median;
    lines.push(
      '',
      '## 2. Cold start',
      '',
      `Process time of \`node\` loading the module (spawned from the package root, ${results.coldStart[0].ms.runs.length} runs, the cases interleaved), and the load alone, timed inside the process around the \`require()\` or \`import()\` (without node's own start, which varies by tens of milliseconds between spawns). The difference to passport-oauth2 is the median of each run's difference to its spawn of \`require('passport-oauth2')\` (paired), which cancels the machine's drift between runs.`,
      '',
      '| command | difference to passport-oauth2 (paired) | process ms | load ms |',
      '|---|---|---|---|',
      ...results.coldStart.map(
        (c) =>
          `| \`${c.name}\` | ${fmt(c.pairedMs?.median ?? c.ms.median - base, 1)} ms | ${cell(c.ms, 1)} | ${c.loadMs ? cell(c.loadMs, 1) : '—'} |`,
      ),
    );
  }
  if (results.webhook) {
    const base = results.webhook[0];
    lines.push(
      '',
      '## 3. Webhook receiver',
      '',
      'Distinct notifications (the sample notification with a new hash each), parse, validate, dedupe, handler.',
      '',
      '| receiver | notifications/s | ratio to baseline | p99 ms |',
      '|---|---|---|---|',
      ...results.webhook.map(
        (w) => `| ${w.name} | ${cell(w.rps)} | ${ratio(w.rps.median, base.rps.median)}x | ${cell(w.p99)} |`,
      ),
      ...watched(results.webhook, results.webhook[1], 'kudosWebhook, in-memory dedupe, '),
    );
  }
  if (results.refreshStorm) {
    const s = results.refreshStorm;
    lines.push(
      '',
      '## 4. Refresh storm',
      '',
      `${s.calls} concurrent API calls for one user whose access token expired (against the emulator).`,
      '',
      '| client | token-endpoint requests | calls that succeeded |',
      '|---|---|---|',
      `| createKudosClient | ${s.createKudosClient.refreshRequests} | ${s.createKudosClient.succeeded} |`,
      `| passport-oauth2-refresh, once per request | ${s.naivePassportOauth2Refresh.refreshRequests} | ${s.naivePassportOauth2Refresh.succeeded} |`,
    );
  }
  if (results.footprint?.passportOauth2) {
    const { passportKudos: k, passportOauth2: o } = results.footprint;
    lines.push(
      '',
      '## 5. Footprint',
      '',
      '| package | packed | unpacked | installed (with dependencies) | runtime packages |',
      '|---|---|---|---|---|',
      `| passport-kudos | ${kb(k.packedBytes)} | ${kb(k.unpackedBytes)} | ${kb(k.installedBytes)} | ${k.runtimePackages} |`,
      `| passport-oauth2 alone | — | — | ${kb(o.installedBytes)} | ${o.runtimePackages} |`,
    );
  }
  if (results.dedupe) {
    lines.push(
      '',
      '## 6. Dedupe store at scale',
      '',
      `A full \`MemoryDedupeStore\` (every new key evicts the oldest) receiving ${fmt(results.dedupe.sizes[0].amount)} new notifications (claim + complete) after 100,000 untimed ones, each size in its own process. Heap per key: the heap the filled store holds over an empty one, per key.`,
      '',
      '| keys held | µs per notification | RSS of the keys | heap per key |',
      '|---|---|---|---|',
      ...results.dedupe.sizes.map(
        (d) =>
          `| ${fmt(d.keys)} | ${fmt(d.nsPerNotification.median / 1000, 2)} (${fmt(d.nsPerNotification.min / 1000, 2)}–${fmt(d.nsPerNotification.max / 1000, 2)}) | ${fmt(d.rssBytes.median / 2 ** 20, 1)} MiB | ${fmt(d.heapBytes.median / d.keys)} bytes |`,
      ),
    );
  }
  if (results.linear) {
    lines.push(
      '',
      '## 7. Hostile request data of growing length',
      '',
      'Time to answer one request whose hostile part is 10,000 and 100,000 characters long (public API, no network). Linear code: about 10x.',
      '',
      '| request | ms at 10,000 | ms at 100,000 | ratio |',
      '|---|---|---|---|',
      ...results.linear.map(
        (row) => `| ${row.name} | ${cell(row.ms10k, 3)} | ${cell(row.ms100k, 3)} | ${row.ratio}x |`,
      ),
    );
  }
  if (results.emulator) {
    const e = results.emulator;
    lines.push(
      '',
      '## 8. The emulator as a test dependency',
      '',
      `${fmt(e.amount)} authorization-code exchanges per run (a real form POST each; the emulator gets a fresh single-use code each time and signs HS256 as the service does; oauth2-mock-server signs RS256, its default).`,
      '',
      '| server | exchanges/s | p99 ms |',
      '|---|---|---|',
      `| Kudos emulator | ${cell(e.kudos.rps)} | ${cell(e.kudos.p99)} |`,
      `| oauth2-mock-server | ${cell(e.oauth2MockServer.rps)} | ${cell(e.oauth2MockServer.p99)} |`,
    );
  }
  if (results.recovery) {
    const r = results.recovery;
    lines.push(
      '',
      '## 9. Recovery: unprocessed() and redrive()',
      '',
      `A \`MemoryDedupeStore\` (and a \`SqliteDedupeStore\` file) holding ${fmt(r.kept)} kept notifications (the sample with a new hash each, as a handler that failed leaves them); \`unprocessed()\` lists them, \`redrive()\` runs each through the full processing (parse, claim, keep, a no-op handler, complete). In process, ${r.unprocessedMs.runs.length} runs.`,
      '',
      '| operation | ms for all | µs per notification |',
      '|---|---|---|',
      `| unprocessed() | ${cell(r.unprocessedMs)} | ${fmt((r.unprocessedMs.median * 1000) / r.kept, 2)} |`,
      `| redrive() | ${cell(r.redriveMs)} | ${fmt((r.redriveMs.median * 1000) / r.kept, 2)} |`,
    );
    if (r.sqlite) {
      const q = r.sqlite;
      lines.push(
        `| unprocessed(), SqliteDedupeStore | ${cell(q.unprocessedMs)} | ${fmt((q.unprocessedMs.median * 1000) / q.kept, 2)} |`,
        `| redrive(), SqliteDedupeStore (synchronous normal) | ${cell(q.redriveMs)} | ${fmt((q.redriveMs.median * 1000) / q.kept, 2)} |`,
      );
    }
  }
  if (results.stateFile) {
    const s = results.stateFile;
    lines.push(
      '',
      '## 10. The emulator state file at scale',
      '',
      `${s.changes} changes (a user added each, saved in the next turn of the event loop) with a history of transactions; the state file holds the small part (rewritten per change), \`FILE.log\` the history (appended). Before this format, the whole history was rewritten per change (743 ms at 100,000 transactions, measured for the issue).`,
      '',
      '| transactions | ms per change | state file | log |',
      '|---|---|---|---|',
      ...s.rows.map(
        (r) =>
          `| ${fmt(r.transactions)} | ${cell(r.msPerChange, 3)} | ${kb(r.fileBytes)} | ${kb(r.logBytes)} |`,
      ),
    );
  }
  if (results.redisTopologies) {
    const t = results.redisTopologies;
    lines.push(
      '',
      '## 11. Redis stores: node-redis and ioredis, one server and a cluster',
      '',
      `The dedupe store's part of ${fmt(t.amount)} deliveries (the claim that keeps the notification, then its completion, as \`kudosWebhook\` does for a verified one), 50 in flight, in process against real redis-server processes on this machine: one server, and a cluster of 3 masters made by \`redis-cli --cluster create\`. The baseline is the least a dedupe can do on the same client (\`SET NX PX\`, then \`SET done\`), in the same run. Round trips per notification are the client's sends, counted; the commands Redis ran for it (those inside the Lua scripts included) from \`INFO commandstats\` of every node; memory from \`INFO memory\` (\`used_memory\`) of every node: the completed keys of the run scaled to 100,000, then ${fmt(t.kept)} kept notifications (the sample body each).${
        t.load
          ? ` Measured with the machine's 1-minute load average at ${fmt(t.load.before, 2)} as the section began and ${fmt(t.load.after, 2)} as it ended, on ${t.load.cpus} CPUs: the absolute figures move with the load (they came out 15 to 30% apart on a busier day), the ratios to the baseline of the same run much less.`
          : ''
      }`,
      '',
      // The ratio first (measured in the same run, it is what reproduces); the absolute figures last,
      // with the load they were measured at.
      `| client | topology | ratio to the baseline (same run) | round trips per notification | commands Redis ran per notification | memory per 100,000 completed keys | memory per kept notification | notifications/s${loadNote(t.load)} | baseline/s${loadNote(t.load)} |`,
      '|---|---|---|---|---|---|---|---|---|',
      ...t.rows.map(
        (r) =>
          `| ${r.library} | ${r.topology} | ${ratio(r.rps.median, r.baselineRps.median)}x | ${fmt(r.tripsPerNotification, 2)} | ${fmt(r.commandsPerNotification, 2)} | ${fmt(r.bytesPer100kCompleted / 2 ** 20, 1)} MiB | ${fmt(r.bytesPerKept / 1024, 2)} kB | ${cell(r.rps)} | ${cell(r.baselineRps)} |`,
      ),
    );
  }
  if (results.webhookBeforeRecovery) {
    lines.push(
      '',
      'Section 3 before the unprocessed bookkeeping (its own run, same machine):',
      '',
      '| receiver | notifications/s | ratio to baseline |',
      '|---|---|---|',
      ...results.webhookBeforeRecovery.map(
        (w) =>
          `| ${w.name} | ${cell(w.rps)} | ${ratio(w.rps.median, results.webhookBeforeRecovery[0].rps.median)}x |`,
      ),
    );
  }
  if (results.payments) {
    lines.push(
      '',
      '## 12. Payments API',
      '',
      'Distinct notifications, each paying one open order in full (its reference in the memo of the chain answer, which the app serves itself, so both variants wait alike on one local lookup): `kudosPayments()` (confirmation, the decision, the order moved to paid by compare-and-set, `onPaid`, the order fulfilled) against `kudosWebhook()` with `cosmosConfirmer` and a no-op handler, on the same dedupe store. Each pair measured back to back in the same run.',
      '',
      '| receiver | notifications/s | ratio to its baseline (median of the runs’ ratios) | p99 ms |',
      '|---|---|---|---|',
      ...results.payments.map((p) => {
        const base = results.payments.find((b) => b.store === p.store && b.mode === 'webhook') ?? p;
        return `| ${p.name} | ${cell(p.rps)} | ${pairedRatio(p.rps.runs, base.rps.runs)}x | ${cell(p.p99)} |`;
      }),
    );
  }
  if (results.health) {
    lines.push(
      '',
      '## 13. Health with many exceptions',
      '',
      `\`status()\` of \`kudosPayments()\` while ${fmt(results.health[0]?.exceptions ?? 0)} payments that credit no order wait (strangers' payments), each store's exceptions counted by its index (\`listedCount()\`), against reading them as \`status()\` did before (every listed record read and parsed), in the same run.`,
      '',
      '| order store | status() ms | before: every record parsed, ms | ratio |',
      '|---|---|---|---|',
      ...results.health.map(
        (r) =>
          `| ${r.store} | ${cell(r.statusMs, 2)} | ${cell(r.parseMs, 2)} | ${fmt(r.parseMs.median / r.statusMs.median, 1)}x faster |`,
      ),
    );
  }
  if (results.chainScan) {
    const c = results.chainScan;
    const row = (name, r, base) =>
      `| ${name} | ${fmt(r.requests)} | ${fmt(r.ms, 1)} | ${fmt(r.processed)} | ${base ? `${fmt(base.requests / r.requests, 1)}x fewer requests, ${fmt(base.ms / r.ms, 1)}x faster than reading the window whole again` : '—'} |`;
    lines.push(
      '',
      '## 14. The way back on the chain: reconcileChain()',
      '',
      `\`reconcileChain()\` of a receiver over ${fmt(c.window)} transfers to the shop in the window (${fmt(c.pages)} pages of 100, and one page of the wallet's other spelling) on a node that pages as the chain's own software (SDK 0.46: \`page\`/\`limit\`, a top-level \`total\`), requests counted by the node. Each later run beside a run that reads the same window whole again (an explicit \`since\`), in the same run.`,
      '',
      '| run | requests | ms | processed | against the whole window again |',
      '|---|---|---|---|---|',
      row('the first run (the window whole)', c.first),
      row('nothing new', c.nothingNew, c.wholeAgain),
      row('10 new', c.tenNew, c.wholeWithTen),
      row('the whole window again (explicit since)', c.wholeAgain),
    );
  }
  const notes = new URL('./notes.md', import.meta.url);
  if (existsSync(notes)) lines.push('', readFileSync(notes, 'utf8').trim());
  return `${lines.join('\n')}\n`;
}

export function writeReport(results, { json, md }) {
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  if (md) writeFileSync(md, markdown(results));
}

// `node bench/report.mjs`: regenerates BENCHMARKS.md from bench/results.json (after editing notes.md).
if (import.meta.url === `file://${process.argv[1]}`) {
  const results = JSON.parse(readFileSync(new URL('./results.json', import.meta.url), 'utf8'));
  writeFileSync(new URL('../BENCHMARKS.md', import.meta.url), markdown(withGoals(results)));
}
