import { type AddressPrefix, LEGACY_PREFIX, MAIN_PREFIX } from 'kudos-core/chain';
import { positiveNumber } from './checks.js';

/** An OAuth client registered with the emulator (setup that the real service does by hand). */
export interface EmulatorClient {
  clientID: string;
  clientSecret: string;
  /** Name shown on the consent page. */
  name?: string;
  /** Whitelisted redirect URIs: exact match, except that a loopback host matches on any port (RFC 8252 section 7.3). */
  redirectURIs: string[];
  /**
   * Scope words this client may request. Default `null`: any word, as the service's authorization
   * page refuses none for being unknown (the API then judges the token by what was granted).
   */
  scopes?: string[] | null;
  /** Exactly the scopes granted when a request names none. Default `['profile']`. */
  defaultScopes?: string[];
}

/** A user account of the emulator. */
export interface EmulatorUser {
  /** User ID: 5 to 20 of `a-z`, `0-9`, `-` and `_`, as the service's (docs/kudos-service.md#observed-values). */
  id: string;
  password: string;
  displayName?: string;
  email?: string;
  /**
   * Where the payment widget may send a payer back after paying this user without `via`
   * (exact match). None: a payment with a `redirect_uri` shows `AGENT_NOT_SETUP_PAYMENT_REDIRECT`.
   */
  paymentRedirectURIs?: string[];
  /**
   * A civic (paying member) user: `true`, or `'trial'` for a trial. Their public profile and
   * `/users/profile` then carry `isSubscribedCivicLiker: true` (or `isCivicLikerTrial: true`) and
   * `civicLikerSince`; the fields are absent for others (observed).
   */
  civicLiker?: boolean | 'trial';
  /** Since when, epoch milliseconds; default: when the emulator started. */
  civicLikerSince?: number;
  /**
   * Whether the user has a chain wallet; default true. `false` is a user registered lately, with
   * none: its profile has no `wallet`, `cosmosWallet` or `kudosWallet`, and the widget refuses to pay
   * it (`RECEIPIENT_HAS_NO_WALLET`, observed).
   */
  wallet?: boolean;
}

/** An agent account whose webhook the operator has set up (docs/kudos-service.md#notifications). */
/** Where an agent's notifications go now: its forward URL while the lease holds, else its webhook. */
export function deliveryURL(agent: EmulatorAgent | undefined, now = Date.now()): string | undefined {
  if (agent?.forwardURL && (agent.forwardUntil ?? 0) > now) return agent.forwardURL;
  return agent?.webhookURL;
}

export interface EmulatorAgent {
  /** The agent's user ID, as given in the widget's `via` parameter. */
  id: string;
  /** Where notifications are POSTed; `https://user:password@...` sends `Authorization: Basic`. */
  webhookURL?: string;
  /**
   * Where notifications go instead while `kudos-emulator listen --forward-to` runs; `webhookURL`
   * is kept, and used again when forwarding ends.
   */
  forwardURL?: string;
  /**
   * Until when (epoch milliseconds, wall clock) `forwardURL` holds: a lease that `listen` renews, so a
   * killed `listen` stops forwarding within about 15 s. Past it, notifications go to `webhookURL`.
   */
  forwardUntil?: number;
  /**
   * The agent's payment redirect whitelist: where the widget may send a payer back after a payment
   * `via` this agent (exact match). None: a payment with a `redirect_uri` shows
   * `AGENT_NOT_SETUP_PAYMENT_REDIRECT`; a URI not on it, `REDIRECT_URI_NOT_WHITELIST`.
   */
  paymentRedirectURIs?: string[];
  /** Whether the agent has a chain wallet; default true. `false`: the widget refuses it as `via` (`VIA_USER_HAS_NO_WALLET`, observed). */
  wallet?: boolean;
}

/**
 * Which service the emulator answers as: `2025` (default), this interface as it last worked (the
 * chain after its v4 release, the service before its 2026 removals); `2026`, the service as it is
 * now, whose removed routes (`/tx/**`, the chain proxy `/cosmos/lcd/**` and `/cosmos/rpc/**`,
 * `/users/id/{id}`, `/users/self`) answer Express's 404 page (docs/kudos-service.md#what-the-service-removed-in-2026).
 */
export type EmulatorGeneration = '2025' | '2026';

/** How the chain's transaction search pages: the chain's own software (Cosmos SDK 0.46), or the service's indexer. */
export type ChainSearchMode = 'sdk' | 'indexer';

/** How refresh answers treat the refresh token (the interface is silent; see docs/reference.md). */
type RefreshTokenMode = 'reuse' | 'rotate';

/** How a `MsgMultiSend` record gives its amount: one summed coin (observed), or one coin per output. */
export type MultiSendAmounts = 'total' | 'per-output';

/** An absolute http: or https: URL. */
export function isHttpURL(value: unknown): boolean {
  return typeof value === 'string' && URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

/** Name of the code parameter on the redirect back to the app (docs/kudos-service.md#authorization-page item 3). */
export type CodeParam = 'code' | 'auth_code' | 'authorization_code';

/**
 * How much a line of the emulator's log matters (the CLI prints `warn` and `error` even with
 * `--quiet`); `debug` lines come only with the `verbose` option.
 */
export type KudosEmulatorLogLevel = 'info' | 'warn' | 'error' | 'debug';

/** Options of `startKudosEmulator()`. */
export interface KudosEmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /**
   * Host names the emulator answers besides loopback names and the address it is bound to (a
   * request with another `Host` is refused: a web page cannot reach it by DNS rebinding).
   */
  allowedHosts?: string[];
  /** OAuth clients; default: the demo client. */
  clients?: EmulatorClient[];
  /** Users; default: `alice` / `wonderland` and `bobby` / `builder`. */
  users?: EmulatorUser[];
  /** Agents with webhooks; default none. */
  agents?: EmulatorAgent[];
  /** Name of the code parameter on the redirect; default `code`. */
  codeParam?: CodeParam;
  /** Lifetime of an authorization code in milliseconds; default 60,000 (a minute). */
  codeLifetimeMs?: number;
  /**
   * Lifetime of a signed avatar URL in milliseconds (its `Expires` is in whole seconds). Default: none, and every avatar URL carries the
   * observed far-future expiry `Expires=2430432000` (2047), as the service's do.
   */
  avatarLifetimeMs?: number;
  /**
   * Refresh answers: `reuse` (default, observed: the same refresh token comes back and keeps
   * working) or `rotate` (a new refresh token each time, ending the old one). Either way a new
   * sign-in issues a new refresh token and ends the older one (rule a).
   */
  refreshTokens?: RefreshTokenMode;
  /** A user who already authorized a client goes straight back with a code (observed). Default true. */
  skipConsentWhenAuthorized?: boolean;
  /** Revocation also ends the access tokens at once. Default false (observed: they work until `exp`). */
  revokeEndsAccessTokens?: boolean;
  /** Milliseconds from payment confirmation to `success`; default 200. */
  paymentDelayMs?: number;
  /**
   * How the record of a `MsgMultiSend` payment (several recipients, or an agent fee) gives its amount
   * in notifications and lookups: `total` (default, observed: one coin, the sum of every output) or
   * `per-output` (one coin per output, as some records have).
   */
  multiSendAmounts?: MultiSendAmounts;
  /**
   * How a payment spells the recipients' addresses on the chain and in its record: `kudos` (default,
   * observed: the widget pays the main-prefix address since 2022) or `cosmos` (the legacy spelling
   * of the same account, as older records have it). docs/kudos-service.md#wallet-addresses.
   */
  paymentAddressPrefix?: AddressPrefix;
  /** Which service to answer as: `2025` (default, this interface as it last worked) or `2026` (its routes removed). */
  generation?: EmulatorGeneration;
  /**
   * Which program answers the chain's transaction search, rule for rule (docs/emulator.md#the-chain):
   * `sdk` (default, the chain's own software, Cosmos SDK 0.46 with CometBFT 0.34: `page` and `limit`,
   * `pagination.*` ignored, a top-level `total`, a page past the last and a bare value 500 code 2) or
   * `indexer` (the service's indexer, most likely its public node: `pagination.offset` rounded to
   * `pagination.limit`, 1 when absent; the totals "0" unless `pagination.count_total=true`; `next_key`;
   * single quotes required, 400 `{"error"}`).
   */
  chainSearch?: ChainSearchMode;
  /** Webhook delivery: attempts in all (default 5), first retry delay (default 500 ms, doubling), per-attempt timeout (default 5000 ms). */
  webhook?: { attempts?: number; retryDelayMs?: number; timeoutMs?: number };
  /** HS256 key of the access tokens; default a random one per emulator. */
  jwtSecret?: string;
  /**
   * Where the emulator logs one line per event, with its level: `info` (requests, sign-ins, payments),
   * `warn` (a webhook delivery that failed) or `error` (a state file it could not save, a delivery
   * given up, an internal error). Default silent. Never given secrets or tokens.
   */
  log?: (line: string, level: KudosEmulatorLogLevel) => void;
  /**
   * Also log one `debug` line per operation the emulator serves, named as passport-kudos's tracing
   * channels (`passport-kudos:token outcome=success status=200 ms=3 ...`): authorize, token,
   * refresh, revoke, api, confirm (the chain lookup), and each notification delivery. Default false.
   */
  verbose?: boolean;
  /**
   * A state file: loaded at start, saved after every change (atomically: a temporary file, then a
   * rename), so a restart keeps users, clients, agents, grants, refresh tokens, transactions and the
   * clock. A file that cannot be read or parsed stops the start with an error naming it.
   */
  state?: string;
  /**
   * Signs this user in and accepts at once on every authorization page, redirecting with a code:
   * for end-to-end tests of an app. Off by default; the CLI banner says so loudly when on.
   */
  autoLogin?: string;
  /**
   * Token the admin API (`/_emulator/`) requires as `Authorization: Bearer`. Without it the admin
   * API answers only requests from a loopback address.
   */
  adminToken?: string;
}

/** The demo client used when no clients are configured. */
export const DEMO_CLIENT: EmulatorClient = {
  clientID: 'kudos-demo-client',
  clientSecret: 'kudos-demo-secret',
  name: 'Kudos Demo App',
  redirectURIs: ['http://localhost:3000/auth/kudos/callback', 'http://127.0.0.1:3000/auth/kudos/callback'],
};

/** The demo users used when no users are configured. */
export const DEMO_USERS: EmulatorUser[] = [
  { id: 'alice', password: 'wonderland', displayName: 'Alice Liddell', email: 'alice@kudos.example' },
  { id: 'bobby', password: 'builder', displayName: 'Bob Builder', email: 'bobby@kudos.example' },
];

/** User IDs the service accepts (docs/kudos-service.md#observed-values). */
export const USER_ID_PATTERN = /^[a-z0-9-_]{5,20}$/;

/** The far-future expiry every observed avatar URL carried (epoch seconds, 2047). */
export const OBSERVED_AVATAR_EXPIRES = 2_430_432_000;

export interface ResolvedEmulatorOptions {
  port: number;
  host: string;
  allowedHosts: string[];
  clients: Required<EmulatorClient>[];
  users: EmulatorUser[];
  agents: EmulatorAgent[];
  codeParam: CodeParam;
  codeLifetimeMs: number;
  avatarLifetimeMs: number | undefined;
  refreshTokens: RefreshTokenMode;
  skipConsentWhenAuthorized: boolean;
  revokeEndsAccessTokens: boolean;
  paymentDelayMs: number;
  multiSendAmounts: MultiSendAmounts;
  paymentAddressPrefix: AddressPrefix;
  generation: EmulatorGeneration;
  chainSearch: ChainSearchMode;
  webhook: { attempts: number; retryDelayMs: number; timeoutMs: number };
  jwtSecret: string | undefined;
  log: (line: string, level: KudosEmulatorLogLevel) => void;
  verbose: boolean;
  state: string | undefined;
  autoLogin: string | undefined;
  adminToken: string | undefined;
}

function fail(message: string): never {
  throw new TypeError(`startKudosEmulator: ${message}`);
}

/**
 * One user, checked the same way whichever door it comes by (the options, the handle's `addUser()`,
 * the admin API, the CLI): `at` names where it was given (`users[0].`), `failWith` throws.
 */
export function checkEmulatorUser(
  u: EmulatorUser | undefined,
  at: string,
  failWith: (message: string) => never,
): EmulatorUser {
  if (!u || typeof u.id !== 'string' || !USER_ID_PATTERN.test(u.id)) {
    failWith(
      `${at}id ${JSON.stringify(u?.id)} must be 5 to 20 characters of a-z, 0-9, "-" and "_", as the service's user IDs`,
    );
  }
  if (typeof u.password !== 'string' || !u.password) failWith(`${at}password must be a non-empty string`);
  checkURIs(u.paymentRedirectURIs, `${at}paymentRedirectURIs`);
  if (
    u.civicLiker !== undefined &&
    u.civicLiker !== true &&
    u.civicLiker !== false &&
    u.civicLiker !== 'trial'
  )
    failWith(`${at}civicLiker must be true, false or "trial"`);
  if (u.wallet !== undefined && typeof u.wallet !== 'boolean') failWith(`${at}wallet must be true or false`);
  if (u.civicLikerSince !== undefined && !(Number.isSafeInteger(u.civicLikerSince) && u.civicLikerSince >= 0))
    failWith(`${at}civicLikerSince must be epoch milliseconds`);
  return u.civicLiker && u.civicLikerSince === undefined ? { ...u, civicLikerSince: Date.now() } : { ...u };
}

function positive(value: unknown, name: string, fallback: number, zero = false): number {
  return value === undefined ? fallback : positiveNumber(value, `startKudosEmulator: "${name}"`, zero);
}

function checkURIs(value: unknown, name: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((u) => typeof u === 'string' && URL.canParse(u))) {
    fail(`${name} must be an array of absolute URLs`);
  }
}

function optionalText(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') fail(`"${name}" must be a non-empty string`);
  return value;
}

function flag(value: unknown, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`"${name}" must be true or false`);
  return value;
}

function oneOf<T extends string>(value: unknown, name: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value as T)) fail(`"${name}" must be one of ${allowed.join(', ')}`);
  return value as T;
}

function allowedHosts(value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((h) => typeof h === 'string' && h !== '')) {
    fail('"allowedHosts" must be an array of host names');
  }
  return [...value];
}

/** Checks the options and applies the defaults. Throws `TypeError` naming the bad option. */
export function resolveEmulatorOptions(options: KudosEmulatorOptions = {}): ResolvedEmulatorOptions {
  const codeParam = options.codeParam ?? 'code';
  if (!['code', 'auth_code', 'authorization_code'].includes(codeParam)) {
    fail('"codeParam" must be one of code, auth_code, authorization_code');
  }
  const clients = (options.clients ?? [DEMO_CLIENT]).map((c, i) => {
    if (!c || typeof c.clientID !== 'string' || !c.clientID)
      fail(`clients[${i}].clientID must be a non-empty string`);
    if (typeof c.clientSecret !== 'string' || !c.clientSecret)
      fail(`clients[${i}].clientSecret must be a non-empty string`);
    // http(s) only: the authorization page redirects the browser there (a `javascript:` URI would run).
    if (!Array.isArray(c.redirectURIs) || !c.redirectURIs.every(isHttpURL)) {
      fail(`clients[${i}].redirectURIs must be an array of absolute http(s) URLs`);
    }
    for (const name of ['scopes', 'defaultScopes'] as const) {
      const list = c[name];
      if (
        list !== undefined &&
        list !== null &&
        (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && x))
      ) {
        fail(`clients[${i}].${name} must be an array of scope names`);
      }
    }
    return {
      name: c.clientID,
      scopes: null,
      defaultScopes: ['profile'],
      ...c,
    } as Required<EmulatorClient>;
  });
  const users = (options.users ?? DEMO_USERS).map((u, i) => checkEmulatorUser(u, `users[${i}].`, fail));
  const agents = (options.agents ?? []).map((a, i) => {
    if (!a || typeof a.id !== 'string' || !a.id) fail(`agents[${i}].id must be a non-empty string`);
    if (a.webhookURL !== undefined && !isHttpURL(a.webhookURL))
      fail(`agents[${i}].webhookURL must be an absolute http(s) URL`);
    checkURIs(a.paymentRedirectURIs, `agents[${i}].paymentRedirectURIs`);
    if (a.wallet !== undefined && typeof a.wallet !== 'boolean')
      fail(`agents[${i}].wallet must be true or false`);
    return { ...a };
  });
  const port = positive(options.port, 'port', 0, true);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    allowedHosts: allowedHosts(options.allowedHosts),
    clients,
    users,
    agents,
    codeParam,
    codeLifetimeMs: positive(options.codeLifetimeMs, 'codeLifetimeMs', 60_000),
    avatarLifetimeMs:
      options.avatarLifetimeMs === undefined
        ? undefined
        : positive(options.avatarLifetimeMs, 'avatarLifetimeMs', 0),
    refreshTokens: oneOf(options.refreshTokens, 'refreshTokens', ['reuse', 'rotate'] as const, 'reuse'),
    skipConsentWhenAuthorized: flag(options.skipConsentWhenAuthorized, 'skipConsentWhenAuthorized', true),
    revokeEndsAccessTokens: flag(options.revokeEndsAccessTokens, 'revokeEndsAccessTokens', false),
    paymentDelayMs: positive(options.paymentDelayMs, 'paymentDelayMs', 200, true),
    multiSendAmounts: oneOf(
      options.multiSendAmounts,
      'multiSendAmounts',
      ['total', 'per-output'] as const,
      'total',
    ),
    paymentAddressPrefix: oneOf(
      options.paymentAddressPrefix,
      'paymentAddressPrefix',
      [MAIN_PREFIX, LEGACY_PREFIX] as const,
      MAIN_PREFIX,
    ),
    generation: oneOf(options.generation, 'generation', ['2025', '2026'] as const, '2025'),
    chainSearch: oneOf(options.chainSearch, 'chainSearch', ['sdk', 'indexer'] as const, 'sdk'),
    webhook: {
      attempts: positive(options.webhook?.attempts, 'webhook.attempts', 5),
      retryDelayMs: positive(options.webhook?.retryDelayMs, 'webhook.retryDelayMs', 500, true),
      timeoutMs: positive(options.webhook?.timeoutMs, 'webhook.timeoutMs', 5000),
    },
    jwtSecret: options.jwtSecret,
    log: options.log ?? (() => undefined),
    verbose: options.verbose === true,
    state: optionalText(options.state, 'state'),
    autoLogin: optionalText(options.autoLogin, 'autoLogin'),
    adminToken: optionalText(options.adminToken, 'adminToken'),
  };
}
