/**
 * The `kudos-emulator` subcommands: thin clients of a running emulator's admin API (`/_emulator/`).
 * Each prints a short human answer, or JSON with `--json`; a refused request prints the API's
 * message (which names the field) and exits 1.
 */
import { parseArgs } from 'node:util';
import { withoutTrailingSlashes } from '../checks.js';
import { parseDuration } from '../model/duration.js';
import { subcommandOf } from './help.js';

/** What a subcommand prints, and its exit code. */
interface CommandResult {
  out: string;
  code: number;
}

/** A mistake on the command line, found before anything runs: exit code 2 and the usage. */
export class CommandError extends Error {}

export type Values = Record<string, string | boolean | undefined>;

/**
 * The CLI's own words for the admin API's fields, so that a refusal names what the user typed
 * (`--forward-to must be ...`, not `"forwardTo" must be ...`). A subcommand may say otherwise for
 * a field it takes as a positional word.
 */
const CLI_WORDS: Readonly<Record<string, string>> = {
  to: '--to',
  amount: '--amount',
  from: '--from',
  via: '--via',
  fee: '--fee',
  status: '--status',
  remarks: '--remarks',
  state: '--state',
  displayName: '--display-name',
  webhookURL: '--webhook',
  paymentRedirectURIs: '--redirect',
  addPaymentRedirectURIs: 'URI',
  forwardTo: '--forward-to',
  advance: 'DURATION',
  id: 'ID',
  password: 'PASSWORD',
  clientID: 'ID',
  clientSecret: 'SECRET',
  redirectURI: 'REDIRECT_URI',
};

/** The admin API's refusal in the CLI's words: its field as the flag or word, `"update": true` as `--update`. */
function inCliWords(message: string, field: unknown, words: Readonly<Record<string, string>> = {}): string {
  let text = message.replace('pass "update": true', 'pass --update');
  if (typeof field === 'string' && text.startsWith(`"${field}" `)) {
    const word = words[field] ?? CLI_WORDS[field];
    if (word) text = `${word}${text.slice(field.length + 2)}`;
  }
  return text;
}

/**
 * A URL as typed on the command line: without a scheme (`localhost:3001/hook`, `127.0.0.1:3001`) it
 * means http://, as the Stripe CLI takes it. A word before a colon is a scheme unless a port (a
 * digit) follows it: `com.example.app:/done` keeps its own. A path (`/hooks`) stays what it is.
 */
export function withScheme(url: string): string {
  return /^[a-z][a-z0-9+.-]*:(?!\d)/i.test(url) || url.startsWith('/') ? url : `http://${url}`;
}

export async function call(
  values: Values,
  method: string,
  path: string,
  body?: unknown,
  words?: Readonly<Record<string, string>>,
): Promise<unknown> {
  // --url, else KUDOS_EMULATOR_URL (set once per shell), else the default port.
  const given = values.url ?? process.env.KUDOS_EMULATOR_URL ?? 'http://127.0.0.1:4000';
  const base = withoutTrailingSlashes(withScheme(String(given)));
  if (!URL.canParse(base)) throw new CommandError('--url (or KUDOS_EMULATOR_URL) must be an absolute URL');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (typeof values['admin-token'] === 'string') headers.authorization = `Bearer ${values['admin-token']}`;
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch {
    throw new Error(`no emulator answers at ${base} (start one with kudos-emulator, or give --url)`);
  }
  const json: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const refusal = (json ?? {}) as { error?: unknown; field?: unknown };
    throw new Error(
      typeof refusal.error === 'string'
        ? inCliWords(refusal.error, refusal.field, words)
        : `the emulator answered HTTP ${res.status}`,
    );
  }
  return json;
}

function needed(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new CommandError(`--${name} is required`);
  return value;
}

function splitSpec(spec: string | undefined, parts: number, what: string): string[] {
  if (!spec) throw new CommandError(`${what} is required`);
  const pieces = spec.split(':');
  // The last part may itself hold colons (a redirect URI).
  const head = pieces.slice(0, parts - 1);
  const tail = pieces.slice(parts - 1).join(':');
  if (head.length < parts - 1 || head.some((p) => p === '') || tail === '')
    throw new CommandError(`${what} is malformed`);
  return [...head, tail];
}

const COMMON = {
  url: { type: 'string' },
  'admin-token': { type: 'string' },
  json: { type: 'boolean' },
} as const;

/**
 * `--no-metadata-posted` (or `--metadata-posted false`): the payment the widget makes when the payer's
 * browser fails to post its metadata (no notification, no redirect). Undefined when neither is given.
 */
function metadataPosted(v: Values): boolean | undefined {
  const given = v['metadata-posted'];
  if (v['no-metadata-posted'] === true) return false;
  if (given === undefined) return undefined;
  if (given !== 'true' && given !== 'false') throw new CommandError('--metadata-posted takes true or false');
  return given === 'true';
}

/** The options any subcommand takes (each reads its own; `strict` refuses the others' misspellings). */
const SUBCOMMAND_OPTIONS = {
  ...COMMON,
  to: { type: 'string' },
  amount: { type: 'string' },
  from: { type: 'string' },
  via: { type: 'string' },
  fee: { type: 'string' },
  status: { type: 'string' },
  remarks: { type: 'string' },
  state: { type: 'string' },
  'no-metadata-posted': { type: 'boolean' },
  'metadata-posted': { type: 'string' },
  'display-name': { type: 'string' },
  webhook: { type: 'string' },
  redirect: { type: 'string', multiple: true },
  update: { type: 'boolean' },
} as const;

/** What a subcommand reads: its options, its positional words, and how it prints its answer. */
interface SubcommandInput {
  v: Values;
  positionals: string[];
  redirects: string[] | undefined;
  print: (json: unknown, human: string) => CommandResult;
}

async function triggerPayment({ v, print }: SubcommandInput): Promise<CommandResult> {
  const body: Record<string, unknown> = {
    to: needed(v, 'to').split(','),
    amount: needed(v, 'amount').split(','),
  };
  for (const name of ['from', 'via', 'fee', 'status', 'remarks', 'state'])
    if (typeof v[name] === 'string') body[name] = v[name];
  const posted = metadataPosted(v);
  if (posted !== undefined) body.metadataPosted = posted;
  const tx = (await call(v, 'POST', '/_emulator/payments', body)) as { txHash: string; status: string };
  // The hash first (what deliveries, resend and a lookup take), then how the payment ended.
  return print(tx, `${tx.txHash}  ${tx.status}`);
}

async function deliveries({ v, print }: SubcommandInput): Promise<CommandResult> {
  const list = (await call(v, 'GET', '/_emulator/deliveries')) as Array<Record<string, unknown>>;
  // A header row, and the delivery ID first: what `resend ID` takes.
  const human = list.length
    ? [
        'ID\tTIME\tAGENT\tURL\tTX HASH\tSTATUS\tANSWER\tATTEMPT',
        ...list.map(
          (d) =>
            `${d.id}\t${d.at}\t${d.agent}\t${d.url}\t${d.txHash}\t${d.status}\t${d.answer}\t${d.attempt}`,
        ),
      ].join('\n')
    : 'no deliveries yet';
  return print(list, human);
}

async function resend({ v, positionals, print }: SubcommandInput): Promise<CommandResult> {
  const id = positionals[0];
  if (!id || !/^\d+$/u.test(id))
    throw new CommandError('resend needs a DELIVERY_ID (a number; see kudos-emulator deliveries)');
  const answer = await call(v, 'POST', `/_emulator/deliveries/${id}/resend`, {});
  return print(answer, `resent delivery ${id}`);
}

async function clockAdvance({ v, positionals, print }: SubcommandInput): Promise<CommandResult> {
  const duration = positionals[0] ?? '';
  if (parseDuration(duration) === undefined)
    throw new CommandError('clock advance needs a DURATION such as 90s, 61m or 1h');
  const answer = (await call(v, 'POST', '/_emulator/clock/advance', { advance: duration })) as {
    now: string;
  };
  return print(answer, `emulator time is now ${answer.now}`);
}

async function usersAdd({ v, positionals, print }: SubcommandInput): Promise<CommandResult> {
  const [id, password] = splitSpec(positionals[0], 2, 'users add ID:PASSWORD') as [string, string];
  const body: Record<string, unknown> = { id, password };
  if (typeof v['display-name'] === 'string') body.displayName = v['display-name'];
  if (v.update) body.update = true;
  const user = (await call(v, 'POST', '/_emulator/users', body)) as { id: string; wallet: string };
  return print(user, `${v.update ? 'updated' : 'added'} user ${user.id} (wallet ${user.wallet})`);
}

async function clientsAdd({ v, positionals, print }: SubcommandInput): Promise<CommandResult> {
  const [clientID, clientSecret, redirectURI] = splitSpec(
    positionals[0],
    3,
    'clients add ID:SECRET:REDIRECT_URI',
  ) as [string, string, string];
  const body: Record<string, unknown> = { clientID, clientSecret, redirectURI: withScheme(redirectURI) };
  if (v.update) body.update = true;
  const client = (await call(v, 'POST', '/_emulator/clients', body)) as { clientID: string };
  return print(client, `${v.update ? 'updated' : 'added'} client ${client.clientID}`);
}

/** `agents add`, `agents set-webhook` and `agents add-redirect`: one request, the body they differ by. */
function agentsCommand(key: 'agents add' | 'agents set-webhook' | 'agents add-redirect') {
  return async ({ v, positionals, redirects, print }: SubcommandInput): Promise<CommandResult> => {
    const id = positionals[0];
    if (!id) throw new CommandError(`${key} needs an agent ID`);
    // Adding refuses an agent that exists; changing one needs it to exist (the emulator checks).
    const body: Record<string, unknown> = { id, update: key !== 'agents add' || v.update === true };
    if (key === 'agents add-redirect') {
      const uris = positionals.slice(1);
      if (uris.length === 0) throw new CommandError('agents add-redirect needs ID URI [URI ...]');
      body.addPaymentRedirectURIs = uris.map(withScheme);
    }
    // set-webhook takes the URL as its second word, or `none` to remove the webhook.
    const webhook = key === 'agents set-webhook' ? positionals[1] : v.webhook;
    if (key === 'agents set-webhook' && typeof webhook !== 'string') {
      throw new CommandError('agents set-webhook needs ID URL (or ID none)');
    }
    if (typeof webhook === 'string') body.webhookURL = webhook === 'none' ? null : withScheme(webhook);
    if (redirects?.length) body.paymentRedirectURIs = redirects.map(withScheme);
    const words: Record<string, string> = key === 'agents set-webhook' ? { webhookURL: 'URL' } : {};
    const agent = (await call(v, 'POST', '/_emulator/agents', body, words)) as {
      id: string;
      webhookURL: string | null;
      paymentRedirectURIs: string[];
    };
    const redirectsNow = agent.paymentRedirectURIs.length
      ? `, redirects ${agent.paymentRedirectURIs.join(' ')}`
      : '';
    return print(agent, `agent ${agent.id}: webhook ${agent.webhookURL ?? 'none'}${redirectsNow}`);
  };
}

/** Each subcommand by its words (`deliveries` and `resend` are one word: any second word is theirs). */
const SUBCOMMANDS = new Map<string, (input: SubcommandInput) => Promise<CommandResult>>([
  ['trigger payment', triggerPayment],
  ['deliveries', deliveries],
  ['resend', resend],
  ['clock advance', clockAdvance],
  ['users add', usersAdd],
  ['clients add', clientsAdd],
  ['agents add', agentsCommand('agents add')],
  ['agents set-webhook', agentsCommand('agents set-webhook')],
  ['agents add-redirect', agentsCommand('agents add-redirect')],
]);

/** Runs one subcommand (`argv` without the command name). */
export async function runSubcommand(argv: string[]): Promise<CommandResult> {
  const [first = '', second = ''] = argv;
  const run = SUBCOMMANDS.get(first) ?? SUBCOMMANDS.get(`${first} ${second}`);
  // A subcommand of two words (`users add`) takes what follows them; one of one word, the rest.
  const rest = subcommandOf(argv)?.includes(' ') ? argv.slice(2) : argv.slice(1);
  const { values, positionals } = parseArgs({
    args: rest,
    options: SUBCOMMAND_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  const v = values as Values;
  const print = (json: unknown, human: string) => ({
    out: v.json ? JSON.stringify(json, null, 2) : human,
    code: 0,
  });
  if (!run) throw new CommandError(`unknown subcommand: ${argv.slice(0, 2).join(' ')}`);
  return run({ v, positionals, redirects: (values as { redirect?: string[] }).redirect, print });
}
