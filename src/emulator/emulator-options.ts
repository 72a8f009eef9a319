import { KNOWN_KUDOS_SCOPES } from '../scopes.js';

/** An OAuth client registered with the emulator (setup that the real service does by hand). */
export interface EmulatorClient {
  clientID: string;
  clientSecret: string;
  /** Name shown on the consent page. */
  name?: string;
  /** Whitelisted redirect URIs: exact match, except that a loopback host matches on any port (RFC 8252 section 7.3). */
  redirectURIs: string[];
  /** Whitelisted scopes. Default: every documented scope, plus `read`, `write` and `kudos`. */
  scopes?: string[];
}

/** A user account of the emulator. */
export interface EmulatorUser {
  /** User ID: a short lower-case handle (letters, digits, `-`). */
  id: string;
  password: string;
  displayName?: string;
  email?: string;
}

/** An agent account whose webhook the operator has set up (docs/kudos-service.md#notifications). */
export interface EmulatorAgent {
  /** The agent's user ID, as given in the widget's `via` parameter. */
  id: string;
  /** Where notifications are POSTed. */
  webhookURL?: string;
}

/** Name of the code parameter on the redirect back to the app (docs/kudos-service.md#authorization-page item 3). */
export type CodeParam = 'code' | 'auth_code' | 'authorization_code';

/** Options of `startKudosEmulator()`. */
export interface KudosEmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind; default `127.0.0.1`. */
  host?: string;
  /** OAuth clients; default: the demo client. */
  clients?: EmulatorClient[];
  /** Users; default: `alice` / `wonderland` and `bob` / `builder`. */
  users?: EmulatorUser[];
  /** Agents with webhooks; default none. */
  agents?: EmulatorAgent[];
  /** Name of the code parameter on the redirect; default `code`. */
  codeParam?: CodeParam;
  /** Lifetime of an authorization code in seconds; default 60. */
  codeLifetimeSeconds?: number;
  /** Lifetime of a signed avatar URL in seconds; default 3600. */
  avatarLifetimeSeconds?: number;
  /** Milliseconds from payment confirmation to `success`; default 200. */
  paymentDelayMs?: number;
  /** Webhook delivery: attempts in all (default 5), first retry delay (default 500 ms, doubling), per-attempt timeout (default 5000 ms). */
  webhook?: { attempts?: number; retryDelayMs?: number; timeoutMs?: number };
  /** HS256 key of the access tokens; default a random one per emulator. */
  jwtSecret?: string;
  /** Where the emulator logs one line per event; default silent. Never given secrets or tokens. */
  log?: (line: string) => void;
}

/** Scopes a client may request unless configured otherwise: the documented ones and the umbrellas of the hierarchy. */
export const DEFAULT_CLIENT_SCOPES: readonly string[] = [...KNOWN_KUDOS_SCOPES, 'read', 'write', 'kudos'];

/** The demo client used when no clients are configured. */
export const DEMO_CLIENT: EmulatorClient = {
  clientID: 'kudos-demo-client',
  clientSecret: 'kudos-demo-secret',
  name: 'Kudos Demo App',
  redirectURIs: ['http://localhost:3000/auth/kudos/callback', 'http://127.0.0.1:3000/auth/kudos/callback'],
  scopes: [...DEFAULT_CLIENT_SCOPES],
};

/** The demo users used when no users are configured. */
export const DEMO_USERS: EmulatorUser[] = [
  { id: 'alice', password: 'wonderland', displayName: 'Alice Liddell', email: 'alice@kudos.example' },
  { id: 'bob', password: 'builder', displayName: 'Bob Builder', email: 'bob@kudos.example' },
];

/** User IDs the service accepts: short lower-case handles (docs/kudos-service.md#observed-values). */
export const USER_ID_PATTERN = /^[a-z0-9][a-z0-9-]{1,38}$/;

/** Options after defaults and checks. */
export interface ResolvedEmulatorOptions {
  port: number;
  host: string;
  clients: Required<EmulatorClient>[];
  users: EmulatorUser[];
  agents: EmulatorAgent[];
  codeParam: CodeParam;
  codeLifetimeSeconds: number;
  avatarLifetimeSeconds: number;
  paymentDelayMs: number;
  webhook: { attempts: number; retryDelayMs: number; timeoutMs: number };
  jwtSecret: string | undefined;
  log: (line: string) => void;
}

function fail(message: string): never {
  throw new TypeError(`startKudosEmulator: ${message}`);
}

function positive(value: unknown, name: string, fallback: number, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    fail(`"${name}" must be a ${allowZero ? 'non-negative' : 'positive'} number`);
  }
  return value;
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
    if (!Array.isArray(c.redirectURIs) || !c.redirectURIs.every((u) => URL.canParse(u))) {
      fail(`clients[${i}].redirectURIs must be an array of absolute URLs`);
    }
    return { name: c.clientID, scopes: [...DEFAULT_CLIENT_SCOPES], ...c } as Required<EmulatorClient>;
  });
  const users = (options.users ?? DEMO_USERS).map((u, i) => {
    if (!u || typeof u.id !== 'string' || !USER_ID_PATTERN.test(u.id)) {
      fail(`users[${i}].id must be a lower-case handle (letters, digits, "-")`);
    }
    if (typeof u.password !== 'string' || !u.password)
      fail(`users[${i}].password must be a non-empty string`);
    return { ...u };
  });
  const agents = (options.agents ?? []).map((a, i) => {
    if (!a || typeof a.id !== 'string' || !a.id) fail(`agents[${i}].id must be a non-empty string`);
    if (a.webhookURL !== undefined && !URL.canParse(a.webhookURL))
      fail(`agents[${i}].webhookURL must be an absolute URL`);
    return { ...a };
  });
  const port = positive(options.port, 'port', 0, true);
  return {
    port,
    host: options.host ?? '127.0.0.1',
    clients,
    users,
    agents,
    codeParam,
    codeLifetimeSeconds: positive(options.codeLifetimeSeconds, 'codeLifetimeSeconds', 60),
    avatarLifetimeSeconds: positive(options.avatarLifetimeSeconds, 'avatarLifetimeSeconds', 3600),
    paymentDelayMs: positive(options.paymentDelayMs, 'paymentDelayMs', 200, true),
    webhook: {
      attempts: positive(options.webhook?.attempts, 'webhook.attempts', 5),
      retryDelayMs: positive(options.webhook?.retryDelayMs, 'webhook.retryDelayMs', 500, true),
      timeoutMs: positive(options.webhook?.timeoutMs, 'webhook.timeoutMs', 5000),
    },
    jwtSecret: options.jwtSecret,
    log: options.log ?? (() => undefined),
  };
}
