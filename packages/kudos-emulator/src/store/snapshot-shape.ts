import { TOKEN_AMOUNT, TX_STATUSES } from 'kudos-core/chain';
import { isRecord } from '../checks.js';
import { MAX_CLOCK_OFFSET_MS } from '../clock.js';
import { isHttpURL } from '../emulator-options.js';

// The shape of a state file, checked at start for every field the emulator later computes with:
// a file edited by hand (or by another version) is refused naming the field, instead of starting
// and crashing when a timer settles a payment, or answering 500 to every lookup of it.

/** Checks a value: undefined when it is right, else where it is wrong below it ('' for itself). */
type Check = (value: unknown) => string | undefined;

const is =
  (test: (value: unknown) => boolean): Check =>
  (value) =>
    test(value) ? undefined : '';
const text = is((v) => typeof v === 'string');
const filled = is((v) => typeof v === 'string' && v !== '');
const flag = is((v) => typeof v === 'boolean');
const count = is((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0);
const time = is((v) => typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 8.64e15);
const url = is(isHttpURL);
const amount = is((v) => typeof v === 'string' && TOKEN_AMOUNT.test(v));
const oneOf = (values: readonly unknown[]) => is((v) => values.includes(v));
/** A string of JSON (a notification body, sent and shown as it is). */
const json = is((v) => {
  if (typeof v !== 'string') return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
});

const listOf =
  (item: Check, { nonEmpty = false } = {}): Check =>
  (value) => {
    if (!Array.isArray(value) || (nonEmpty && value.length === 0)) return '';
    for (const [i, entry] of value.entries()) {
      const where = item(entry);
      if (where !== undefined) return `[${i}]${where}`;
    }
    return undefined;
  };
const texts = listOf(text);
/** Payment redirect URIs: absolute URLs, as the options take them (an app's own scheme too). */
const uris = listOf(is((v) => typeof v === 'string' && URL.canParse(v)));

/** An object with `fields` (each required) and `optional` ones (absent, or right). */
const record =
  (fields: Record<string, Check>, optional: Record<string, Check> = {}): Check =>
  (value) => {
    if (!isRecord(value)) return '';
    for (const [name, check] of Object.entries(fields)) {
      const where = check(value[name]);
      if (where !== undefined) return `.${name}${where}`;
    }
    for (const [name, check] of Object.entries(optional)) {
      if (value[name] === undefined) continue;
      const where = check(value[name]);
      if (where !== undefined) return `.${name}${where}`;
    }
    return undefined;
  };

/** Both checks, the second only once the first holds. */
const both =
  (first: Check, second: (value: Record<string, unknown>) => string | undefined): Check =>
  (value) =>
    first(value) ?? second(value as Record<string, unknown>);

const pair =
  (second: Check): Check =>
  (value) => {
    if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') return '';
    const where = second(value[1]);
    return where === undefined ? undefined : `[1]${where}`;
  };

/** The widget's parameters as given: strings only (they go into notifications as they are). */
const given: Check = (value) => {
  if (!isRecord(value)) return '';
  for (const [name, v] of Object.entries(value)) if (typeof v !== 'string') return `.${name}`;
  return undefined;
};

/** A payment request: what the settling timer, the chain records and the notifications compute with. */
const request = both(
  record(
    {
      from: filled,
      to: listOf(filled, { nonEmpty: true }),
      amounts: listOf(amount, { nonEmpty: true }),
      remarks: text,
      blocking: flag,
      opener: flag,
      given,
    },
    { via: filled, fee: amount, state: text, redirectURI: text },
  ),
  (r) => ((r.amounts as unknown[]).length === (r.to as unknown[]).length ? undefined : '.amounts'),
);

const status = oneOf(TX_STATUSES);

/** Every list of the file and what each entry must be. */
const LISTS: Record<string, Check> = {
  users: record(
    { id: filled, password: text },
    {
      displayName: text,
      email: text,
      paymentRedirectURIs: uris,
      civicLiker: (v) => (typeof v === 'boolean' || v === 'trial' ? undefined : ''),
      civicLikerSince: time,
    },
  ),
  clients: record(
    { clientID: filled, clientSecret: filled, redirectURIs: listOf(url) },
    {
      name: text,
      scopes: (v) => (v === null ? undefined : texts(v)),
      defaultScopes: texts,
    },
  ),
  agents: record(
    { id: filled },
    { webhookURL: url, paymentRedirectURIs: uris, forwardURL: url, forwardUntil: time },
  ),
  grants: record({ clientID: text, userId: text, scope: texts, grantedAt: time }),
  refreshTokens: pair(record({ clientID: text, userId: text, scope: texts })),
  activeRefresh: pair(text),
  transactions: record(
    {
      txHash: filled,
      request,
      status,
      outcome: oneOf(TX_STATUSES.filter((s) => s !== 'pending')),
      ts: time,
      completeTs: time,
    },
    { height: count, paidPrefix: oneOf(['kudos', 'cosmos']), metadataPosted: flag },
  ),
};

/** Lists that older files lack. */
const OPTIONAL_LISTS: Record<string, Check> = {
  deliveries: record(
    {
      id: count,
      notificationId: count,
      url: text,
      agentId: text,
      txHash: text,
      txStatus: status,
      attempt: count,
      at: time,
      body: json,
    },
    { responseStatus: count, error: text, retryInMs: count },
  ),
  outbox: record({
    notificationId: count,
    agentId: text,
    url,
    txHash: text,
    txStatus: status,
    body: json,
    attempt: count,
    dueAt: time,
  }),
};

/** The first field of a parsed state file that is not what the emulator wrote, or undefined. */
export function shapeProblem(json: Record<string, unknown>): string | undefined {
  if (typeof json.jwtSecret !== 'string' || json.jwtSecret === '') return 'jwtSecret';
  const offset = json.clockOffsetMs;
  if (typeof offset !== 'number' || !(offset >= 0 && offset <= MAX_CLOCK_OFFSET_MS)) return 'clockOffsetMs';
  if (json.nextNotificationId !== undefined && count(json.nextNotificationId) !== undefined) {
    return 'nextNotificationId';
  }
  for (const [name, entry] of Object.entries({ ...LISTS, ...OPTIONAL_LISTS })) {
    const list = json[name];
    if (list === undefined && name in OPTIONAL_LISTS) continue;
    const where = listOf(entry)(list);
    if (where !== undefined) return `${name}${where}`;
  }
  return undefined;
}
