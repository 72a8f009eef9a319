/**
 * `kudos-emulator listen --forward-to URL [--agent ID] [--print-body]`: for the session, an agent's
 * notifications go to URL (a receiver on the developer's machine), and each delivery is printed as
 * it happens, until Ctrl-C puts the agent's own webhook back (the Stripe CLI habit).
 */
import { parseArgs } from 'node:util';
import { MIN_WEBHOOK_SECRET_LENGTH, redactWebhookURL } from 'kudos-core';
import { CommandError, call, type Values, withScheme } from './admin.js';

/** How often the deliveries are looked at. */
const POLL_MS = 200;
/** How long each renewal of the forward holds, and how often it is renewed: a killed listen stops forwarding within 15 s. */
const LEASE_MS = 15_000;
const RENEW_MS = 5_000;

type Delivery = Record<string, unknown> & { id: number };

/** Said under a 401 from the forward target: the usual cause is a URL without the receiver's secret. */
const UNAUTHORIZED_HINT =
  "401: your receiver refused the notification's credentials. Put its webhook secret in --forward-to (…/webhooks/kudos?token=SECRET, or https://user:SECRET@…).";

/**
 * Runs until SIGINT or SIGTERM (or `stopped`, when given: a caller in process ends it so); resolves
 * with the exit code.
 */
export async function runListen(
  argv: string[],
  print: (line: string) => void = console.log,
  stopped?: Promise<void>,
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'forward-to': { type: 'string' },
      agent: { type: 'string' },
      'print-body': { type: 'boolean' },
      url: { type: 'string' },
      'admin-token': { type: 'string' },
    },
    strict: true,
  });
  const v = values as Values;
  const given = v['forward-to'];
  const target = typeof given === 'string' && given !== '' ? withScheme(given) : undefined;
  if (target === undefined || !URL.canParse(target)) {
    throw new CommandError('listen needs --forward-to URL (an http(s) URL; without a scheme, http://)');
  }
  const state = (await call(v, 'GET', '/_emulator/state')) as { agents?: Array<{ id: string }> };
  const agents = (state.agents ?? []).map((a) => a.id);
  let agent = typeof v.agent === 'string' ? v.agent : undefined;
  if (agent === undefined) {
    // Never a guess: with several agents, forwarding the wrong one's payments looks like lost ones.
    if (agents.length > 1) {
      throw new CommandError(
        `the emulator has ${agents.length} agents (${agents.join(', ')}): give --agent ID`,
      );
    }
    agent = agents[0];
    if (agent === undefined)
      throw new CommandError('the emulator has no agent: give --agent ID (it is created)');
  } else if (!agents.includes(agent)) {
    await call(v, 'POST', '/_emulator/agents', { id: agent }, { id: '--agent' });
    print(`Created agent ${agent} (it had none of that name).`);
  }
  const path = `/_emulator/deliveries${v['print-body'] ? '?body=1' : ''}`;
  const known = (await call(v, 'GET', path)) as Delivery[];
  let seen = known.reduce((max, d) => Math.max(max, d.id), 0);
  const forward = { id: agent, update: true, forwardTo: target, forwardForMs: LEASE_MS };
  await call(v, 'POST', '/_emulator/agents', forward, { id: '--agent' });
  // Never the secret a forward URL may carry (?token=, a last path segment), as everywhere else.
  const shown = redactWebhookURL(target, MIN_WEBHOOK_SECRET_LENGTH);
  print(`Forwarding the notifications of agent ${agent} to ${shown} (Ctrl-C to stop).`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    let hinted = false;
    const renew = setInterval(() => {
      call(v, 'POST', '/_emulator/agents', forward).catch((error: unknown) =>
        print(`could not renew the forwarding: ${error instanceof Error ? error.message : 'error'}`),
      );
    }, RENEW_MS);
    const poll = setInterval(() => {
      call(v, 'GET', path).then(
        (list) => {
          for (const d of list as Delivery[]) {
            if (d.id <= seen) continue;
            seen = d.id;
            print(
              `${d.at}  delivery ${d.id}  ${d.txHash}  ${d.status}  -> ${d.answer}  (attempt ${d.attempt})${
                d.answer === 401 && !hinted ? `\n  ${UNAUTHORIZED_HINT}` : ''
              }`,
            );
            if (d.answer === 401) hinted = true; // said once: every retry would say it again
            if (v['print-body']) print(JSON.stringify(d.body, null, 2));
          }
        },
        (error: unknown) =>
          print(`could not read the deliveries: ${error instanceof Error ? error.message : 'error'}`),
      );
    }, POLL_MS);
    const stop = () => {
      if (stopping) return;
      stopping = true;
      clearInterval(poll);
      clearInterval(renew);
      call(v, 'POST', '/_emulator/agents', { id: agent, update: true, forwardTo: null }).then(
        () => {
          print(`Stopped forwarding: agent ${agent}'s notifications go to its own webhook again.`);
          resolve(0);
        },
        (error: unknown) => {
          print(`could not stop forwarding: ${error instanceof Error ? error.message : 'error'}`);
          resolve(1);
        },
      );
    };
    if (stopped) {
      void stopped.then(stop);
      return;
    }
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
