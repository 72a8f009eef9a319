/**
 * `kudos-emulator` (no subcommand): starts the local Kudos emulator from the shell.
 * Flags or a JSON config file (the options of `startKudosEmulator`) set clients, users and agents.
 */

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { isRecord } from '../checks.js';
import { type KudosEmulator, startKudosEmulator } from '../emulator.js';
import type {
  EmulatorAgent,
  EmulatorClient,
  EmulatorUser,
  KudosEmulatorOptions,
} from '../emulator-options.js';
import { DEMO_CLIENT, DEMO_USERS } from '../emulator-options.js';
import { EmulatorStateFileError } from '../store/persistence.js';
import { CommandError, withScheme } from './admin.js';
import { shortParseError, usageError } from './help.js';

/** Usage of the command, the start options and the subcommands. */
export const USAGE = `Usage: kudos-emulator [options]          start an emulator
       kudos-emulator <subcommand> [--url URL] [--admin-token TOKEN] ...   talk to a running one

  --port N              port to listen on (default 4000; 0 picks a free one)
  --host ADDRESS        address to bind (default 127.0.0.1)
  --host-allow HOST     a Host name to answer besides loopback names and the bound address (repeatable)
  --config FILE         JSON file with { clients, users, agents, codeParam, ... }
  --client ID:SECRET:REDIRECT_URI   a client (repeatable; replaces the demo client)
  --user ID:PASSWORD    a user (repeatable; replaces the demo users)
  --agent ID=WEBHOOK_URL  an agent whose webhook is set up (repeatable; user:password@ in the URL
                        sends Authorization: Basic)
  --payment-redirect ID=URI  adds URI to the payment redirect whitelist of agent or user ID
                        (repeatable; the widget redirects only to whitelisted URIs)
  --code-param NAME     code, auth_code or authorization_code (default code)
  --payment-address-prefix PREFIX   how payments spell the receiver's address: kudos (default,
                        as the widget pays since 2022) or cosmos (the legacy spelling, old records)
  --generation YEAR     2025 (default: this interface as it last worked) or 2026 (the service now:
                        /tx/**, the chain proxy /cosmos/lcd/** and /cosmos/rpc/**, /users/id/ID and
                        /users/self answer Express's 404 page, as the service removed them)
  --chain-search MODE   which program answers the chain's transaction search: sdk (default: the
                        chain's own software, page/limit and a top-level total) or indexer (the
                        service's public node: pagination.offset/limit, counts only when asked)
  --state FILE          load state from FILE at start and save every change to it
  --auto-login USER     sign USER in and accept at once on every authorization page (e2e tests)
  --admin-token TOKEN   the admin API (/_emulator/) then needs this token; without it, loopback only
  --quiet               do not log requests (warnings and errors are still printed)
  --verbose             also print one line per operation served (authorize, token, refresh, revoke,
                        api, confirm) and per notification delivery, named as passport-kudos's
                        tracing channels: passport-kudos:token outcome=success status=200 ms=3 ...
  --help, -h            this text; kudos-emulator help SUBCOMMAND (or SUBCOMMAND --help) for one
  --version             the version

Subcommands (a running emulator at --url, else KUDOS_EMULATOR_URL, else http://127.0.0.1:4000):
  trigger payment --to ID --amount N [--from ID] [--via AGENT] [--fee N]
                  [--status success|fail|timeout] [--remarks TEXT] [--state TEXT]
                  [--no-metadata-posted] [--json]
  deliveries [--json]             every webhook delivery
  resend DELIVERY_ID              send that notification again, as a redelivery
  clock advance DURATION          move the clock forward (90s, 61m, 1h)
  users add ID:PASSWORD [--display-name NAME] [--update]   (--update: replace an existing user)
  clients add ID:SECRET:REDIRECT_URI [--update]   (--update: replace an existing client)
  agents add ID [--webhook URL] [--redirect URI ...] [--update]   (--update: change an existing agent)
  agents add-redirect ID URI ...  add URIs to an agent's payment redirect whitelist
  agents set-webhook ID URL|none  point an existing agent's webhook at URL (none: remove it)
  listen --forward-to URL [--agent ID] [--print-body]
                                  the agent's notifications go to URL and are printed as they
                                  happen, until Ctrl-C puts its own webhook back
A URL without a scheme (localhost:3001/webhooks/kudos) means http://.

Example: an emulator for the README's payment snippet, its receiver on port 3001 (the webhook URL
carries the receiver's secret: without it every delivery is answered 401):
  kudos-emulator --agent "shop-agent=http://localhost:3001/webhooks/kudos?token=$KUDOS_WEBHOOK_SECRET" \\
    --payment-redirect shop-agent=http://localhost:3001/paid`;

/** A mistake on the command line: shown with the usage, exit code 2. */
function splitOnce(value: string, separator: string, what: string): [string, string] {
  const at = value.indexOf(separator);
  if (at <= 0) throw new CommandError(`${what} must look like A${separator}B`);
  return [value.slice(0, at), value.slice(at + 1)];
}

function readConfig(path: string): KudosEmulatorOptions {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CommandError(`cannot read config file ${path}`);
  }
  try {
    const json: unknown = JSON.parse(text);
    if (!isRecord(json)) throw new Error('not an object');
    return json as KudosEmulatorOptions;
  } catch {
    throw new CommandError(`config file ${path} is not a JSON object`);
  }
}

/** The start options of `argv`; undefined for `--help`. Throws CommandError (or a parse error) on a mistake. */
export function parseStartOptions(argv: string[]): KudosEmulatorOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'host-allow': { type: 'string', multiple: true },
      config: { type: 'string' },
      client: { type: 'string', multiple: true },
      user: { type: 'string', multiple: true },
      agent: { type: 'string', multiple: true },
      'payment-redirect': { type: 'string', multiple: true },
      'code-param': { type: 'string' },
      'payment-address-prefix': { type: 'string' },
      generation: { type: 'string' },
      'chain-search': { type: 'string' },
      state: { type: 'string' },
      'auto-login': { type: 'string' },
      'admin-token': { type: 'string' },
      quiet: { type: 'boolean' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) return undefined;
  const options: KudosEmulatorOptions = values.config ? readConfig(values.config) : {};
  if (values.port !== undefined) {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535)
      throw new CommandError('--port must be 0 to 65535');
    options.port = Number(values.port);
  }
  options.port ??= 4000;
  if (values.host) options.host = values.host;
  if (values['host-allow']) options.allowedHosts = [...(options.allowedHosts ?? []), ...values['host-allow']];
  if (values['code-param']) options.codeParam = values['code-param'] as KudosEmulatorOptions['codeParam'];
  if (values['payment-address-prefix']) {
    options.paymentAddressPrefix = values[
      'payment-address-prefix'
    ] as KudosEmulatorOptions['paymentAddressPrefix'];
  }
  if (values.generation) options.generation = values.generation as KudosEmulatorOptions['generation'];
  if (values['chain-search'])
    options.chainSearch = values['chain-search'] as KudosEmulatorOptions['chainSearch'];
  if (values.client) {
    options.clients = values.client.map((spec): EmulatorClient => {
      const [clientID, rest] = splitOnce(spec, ':', '--client');
      const [clientSecret, redirectURI] = splitOnce(rest, ':', '--client SECRET:REDIRECT_URI');
      return { clientID, clientSecret, name: clientID, redirectURIs: [redirectURI] };
    });
  }
  if (values.user) {
    options.users = values.user.map((spec): EmulatorUser => {
      const [id, password] = splitOnce(spec, ':', '--user');
      return { id, password };
    });
  }
  if (values.agent) {
    const agents = values.agent.map((spec): EmulatorAgent => {
      const [id, webhookURL] = splitOnce(spec, '=', '--agent');
      return { id, webhookURL: withScheme(webhookURL) };
    });
    options.agents = [...(options.agents ?? []), ...agents];
  }
  for (const spec of values['payment-redirect'] ?? []) addPaymentRedirect(options, spec);
  if (values.state !== undefined) options.state = values.state;
  if (values['auto-login'] !== undefined) options.autoLogin = values['auto-login'];
  if (values['admin-token'] !== undefined) options.adminToken = values['admin-token'];
  // --quiet stops the request log only: warnings and errors (a failed delivery, a state file that
  // could not be saved) always go to stderr. --verbose adds the operation lines (level debug), on stdout.
  const quiet = values.quiet === true;
  if (values.verbose === true) options.verbose = true;
  options.log = (line, level) => {
    if (level === 'warn' || level === 'error') console.error(line);
    else if (level === 'debug' || !quiet) console.log(line);
  };
  return options;
}

/** `--payment-redirect ID=URI`: whitelists URI for payments via agent ID, or to user ID without via. */
function addPaymentRedirect(options: KudosEmulatorOptions, spec: string): void {
  const [id, given] = splitOnce(spec, '=', '--payment-redirect');
  const uri = withScheme(given);
  if (!URL.canParse(uri)) throw new CommandError(`--payment-redirect ${id}=... needs an absolute URL`);
  const agent = options.agents?.find((a) => a.id === id);
  if (agent) {
    agent.paymentRedirectURIs = [...(agent.paymentRedirectURIs ?? []), uri];
    return;
  }
  options.users = (options.users ?? DEMO_USERS).map((u) => ({ ...u }));
  const user = options.users.find((u) => u.id === id);
  if (!user)
    throw new CommandError(
      `--payment-redirect ${id}=...: no agent or user "${id}" (give --agent or --user first)`,
    );
  user.paymentRedirectURIs = [...(user.paymentRedirectURIs ?? []), uri];
}

/** The start banner: the URLs to configure, the accounts, and the subcommands. */
export function banner(
  emulator: KudosEmulator,
  options: KudosEmulatorOptions,
  state: Record<string, unknown>,
): string {
  const clients = options.clients ?? [DEMO_CLIENT];
  const users = (state.users as Array<{ id: string; wallet: string; kudosWallet: string }>) ?? [];
  const passwords = new Map((options.users ?? DEMO_USERS).map((u) => [u.id, u.password]));
  const agents =
    (state.agents as Array<{ id: string; wallet: string; kudosWallet: string; webhookURL: string | null }>) ??
    [];
  const lines = [
    'Kudos emulator listening',
    '',
    'Configure your app with:',
    `  authURL:   ${emulator.authURL}`,
    `  baseURL:   ${emulator.baseURL}`,
    `  token:     ${emulator.tokenURL}`,
    `  chain:     ${emulator.chainURL}   (the chain node's REST interface: restURL of kudosPayments() and cosmosConfirmer())`,
    ...(options.generation === '2026'
      ? [
          '  generation: 2026, the service as it is now: /tx/**, the chain proxy /cosmos/lcd/**, /users/id/ID and',
          '              /users/self answer 404 (point restURL at the chain above)',
        ]
      : [
          '  generation: 2025, this interface as it last worked (--generation 2026: the service now)',
          `  LCD:       ${emulator.baseURL}/cosmos/lcd   (the service's chain proxy, gone in 2026; cosmosConfirmer({ baseURL }) finds it)`,
        ]),
    '',
    "The README's snippets read these (the client is the first one below):",
    `  export KUDOS_AUTH_URL=${emulator.authURL}`,
    `  export KUDOS_BASE_URL=${emulator.baseURL}`,
    `  export KUDOS_CHAIN_URL=${emulator.chainURL}`,
    ...(clients[0]
      ? [
          `  export KUDOS_CLIENT_ID=${clients[0].clientID}`,
          `  export KUDOS_CLIENT_SECRET=${clients[0].clientSecret}`,
        ]
      : []),
    '',
    `  clients:   ${clients.map((c) => `${c.clientID} / ${c.clientSecret}`).join(', ')}`,
    `  users:     ${users.map((u) => `${u.id} / ${passwords.get(u.id) ?? '(saved)'}`).join(', ')}`,
    '  wallets (one account in two spellings each: the chain pays the kudos1 one; either is a receiver):',
    ...users.map((u) => `    ${u.id}: ${u.wallet}  ${u.kudosWallet}`),
    `  agents:    ${agents.length ? '' : 'none (add with --agent ID=WEBHOOK_URL)'}`,
    ...agents.map((a) => `    ${a.id}: wallet ${a.wallet}, webhook ${a.webhookURL ?? 'none'}`),
  ];
  if (options.state) lines.push('', `State file: ${options.state} (saved after every change)`);
  if (options.autoLogin) {
    lines.push(
      '',
      '!!! AUTO-LOGIN IS ON !!!',
      `!!! Every authorization page signs in "${options.autoLogin}" and accepts at once, without asking. !!!`,
      '!!! For end-to-end tests only. !!!',
    );
  }
  lines.push(
    '',
    `Subcommands (with --url ${emulator.authURL}, or KUDOS_EMULATOR_URL): trigger payment, deliveries, resend, clock advance, users add, clients add, agents add, agents add-redirect, agents set-webhook, listen --forward-to`,
    'Run kudos-emulator --help for their options.',
  );
  return lines.join('\n');
}

/** `kudos-emulator [options]`: starts an emulator and prints the banner. */
export async function startCommand(argv: string[]): Promise<void> {
  let options: KudosEmulatorOptions | undefined;
  try {
    options = parseStartOptions(argv);
  } catch (error) {
    const message =
      error instanceof Error
        ? (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')
          ? shortParseError(error)
          : error.message
        : String(error);
    console.error(usageError(message, undefined));
    process.exit(2);
  }
  if (!options) {
    console.log(USAGE);
    return;
  }
  try {
    const emulator = await startKudosEmulator(options);
    const res = await fetch(`${emulator.authURL}/_emulator/state`, {
      headers: options.adminToken ? { authorization: `Bearer ${options.adminToken}` } : {},
    });
    console.log(banner(emulator, options, (await res.json()) as Record<string, unknown>));
    const stop = () => void emulator.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    const reason =
      error instanceof TypeError ||
      error instanceof EmulatorStateFileError ||
      (error as NodeJS.ErrnoException).code
        ? (error as Error).message
        : 'failed';
    console.error(`kudos-emulator: ${reason}`);
    process.exit(1);
  }
}
