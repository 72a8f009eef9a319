import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KUDOS_API, SAFE_ERROR_CODE } from 'kudos-core';
import { type AddressPrefix, LEGACY_PREFIX, MAIN_PREFIX } from 'kudos-core/chain';
import { EmulatorClock } from './clock.js';
import type { EmulatorClient, EmulatorUser, KudosEmulatorOptions } from './emulator-options.js';
import { isHttpURL, resolveEmulatorOptions } from './emulator-options.js';
import { issueCode, revokeGrant } from './model/grants.js';
import { walletAddress } from './model/ids.js';
import { EmulatorOperations, type PayArguments } from './model/operations.js';
import { applyApiHeaders } from './server/api-headers.js';
import { requestHostAllowed } from './server/host-check.js';
import { sendCode, withQuery } from './server/http.js';
import {
  CHAIN_NODE_PREFIX,
  chainNodePath,
  removedPath,
  sendExpressNotFound,
} from './server/removed-routes.js';

export type { PayArguments };

import { accountRoutes } from './routes/account.js';
import { adminRoutes } from './routes/admin.js';
import { apiRoutes } from './routes/api.js';
import { authorizeRoutes, checkAuthorizationRequest } from './routes/authorize.js';
import { avatarRoutes } from './routes/avatar.js';
import { chainRoutes } from './routes/chain.js';
import { homeRoutes } from './routes/home.js';
import { loginRoutes } from './routes/login.js';
import { logoutRoutes } from './routes/logout.js';
import { tokenRoutes } from './routes/token.js';
import { widgetRoutes } from './routes/widget.js';
import { operationLine } from './server/operation-line.js';
import { Router } from './server/router.js';
import { type EmulatorCounters, EmulatorState, grantKey } from './state.js';
import {
  type EmulatorSnapshot,
  lockStateFile,
  readSnapshot,
  removeLeftovers,
  StateFileWriter,
} from './store/persistence.js';
import type { EmulatorTransaction, FinalTxStatus } from './transaction.js';
import { type WebhookDelivery, type WebhookMode, WebhookSender } from './webhook-sender.js';

/** Arguments of {@link KudosEmulator.authorize}. */
export interface AuthorizeArguments {
  /** Default: the first client. */
  clientID?: string;
  /** Default: the first user. */
  user?: string;
  /** Default: `profile`. */
  scope?: string | string[];
  /** Default: the client's first redirect URI. */
  redirectURI?: string;
  state?: string;
}

/** A running emulator and its test helpers. */
export interface KudosEmulator {
  /** `{authURL}`: pass as `authURL` to `KudosStrategy`. */
  readonly authURL: string;
  /** `{baseURL}`: pass as `baseURL` to `KudosStrategy`. */
  readonly baseURL: string;
  /**
   * The chain node's own REST (LCD) interface, apart from the service (`{origin}/chain`): what
   * `{baseURL}/cosmos/lcd` forwarded to, answered in every generation. Pass as `restURL` to
   * `kudosPayments()` or `cosmosConfirmer()` for a money path that needs only the chain.
   */
  readonly chainURL: string;
  /** Token endpoint `{baseURL}/oauth/access_token` (also takes `grant_type=refresh_token`). */
  readonly tokenURL: string;
  /** Client revocation endpoint `{baseURL}/oauth/revoke` (RFC 7009 form; the emulator's choice). */
  readonly revokeURL: string;
  readonly port: number;
  /** What reached the emulator so far. */
  readonly counters: Readonly<EmulatorCounters>;
  /** Every webhook delivery attempt so far, oldest first. */
  readonly deliveries: readonly WebhookDelivery[];
  /** Test switches of webhook delivery. */
  readonly webhookMode: WebhookMode;
  /** Gets an authorization code as if the user accepted the consent page; throws on a bad request. */
  authorize(args?: AuthorizeArguments): { code: string; redirectURL: string };
  /** The user revokes the app on the account page (docs/kudos-service.md#limits rule b). */
  revokeAsUser(userId: string, clientID: string): boolean;
  /** Makes a widget payment; resolves once created (await `settled` for the final status). */
  pay(args: PayArguments): EmulatorTransaction;
  /** Sends the notification of delivery `id` again, as a redelivery; false when there is none. */
  resend(deliveryId: number): boolean;
  /** Forces the outcome of the next payment confirmed in the widget. */
  setNextPaymentOutcome(outcome: FinalTxStatus): void;
  /**
   * Makes the next authorization that would send a code answer as when the service's authorize call
   * fails: a redirect to `redirect_uri` with `?error=<error>` and no `state`. Throws `TypeError` for a
   * word that is not 1 to 64 letters, digits, `_`, `.` or `-`.
   */
  failNextAuthorization(error: string): void;
  /** Sets up (or removes) an agent's webhook: the operator's job in the real service. */
  setWebhook(agentId: string, webhookURL: string | undefined): void;
  /**
   * Sets the payment redirect whitelist of an agent (payments `via` it) or, when no agent has the
   * ID, of a user (payments to them without `via`): the operator's job in the real service.
   */
  setPaymentRedirectURIs(id: string, uris: readonly string[]): void;
  addClient(client: EmulatorClient): void;
  addUser(user: EmulatorUser): void;
  /** Moves the emulator's clock forward (tokens, codes and avatar URLs expire by it). */
  advanceClock(ms: number): void;
  /** The emulator's current time, epoch milliseconds. */
  now(): number;
  /**
   * The wallet address of a user or agent: a bech32 address (valid checksum, stable per ID), spelled
   * `cosmos1…` as the user record's `cosmosWallet` by default, or `kudos1…` with `prefix` `kudos`,
   * as the chain pays it (the same account: either is a `wallet` a test shop can give). Throws
   * `TypeError` for an ID that is neither a user nor an agent.
   */
  walletOf(id: string, prefix?: AddressPrefix): string;
  /**
   * The next payment confirmed (in the widget, or by `pay()` without `metadataPosted`) is made as
   * when the payer's browser fails to post the widget's metadata: the money moves and the
   * transaction is recorded without metadata, but no notification is sent and the widget neither
   * redirects nor posts to its opener. Browser tests can also tick the widget page's switch.
   */
  failNextMetadataPost(): void;
  /** Resolves when every payment has settled and no webhook delivery or retry is pending. */
  idle(): Promise<void>;
  /** Stops the server and every timer. */
  close(): Promise<void>;
}

/**
 * Puts a saved state into a new emulator (its configured clients, users and agents stay unless saved
 * ones replace them). A payment that was pending settles and notifies as it would have, and the
 * notifications that were still to be delivered (an attempt cut off, or a retry waiting) are resumed.
 */
function restore(
  state: EmulatorState,
  ops: EmulatorOperations,
  webhooks: WebhookSender,
  snapshot: EmulatorSnapshot,
): void {
  state.clock.restore(snapshot.clockOffsetMs);
  for (const user of snapshot.users) state.users.set(user.id, user);
  for (const client of snapshot.clients) state.clients.set(client.clientID, client);
  for (const agent of snapshot.agents) state.agents.set(agent.id, agent);
  for (const grant of snapshot.grants) state.grants.set(grantKey(grant.clientID, grant.userId), grant);
  for (const [token, record] of snapshot.refreshTokens) state.refreshTokens.set(token, record);
  for (const [key, token] of snapshot.activeRefresh) state.activeRefresh.set(key, token);
  for (const saved of snapshot.transactions) {
    if (saved.status === 'pending') ops.resumePayment(saved);
    else state.addTransaction({ ...saved, settled: Promise.resolve() });
  }
  webhooks.resume({
    deliveries: snapshot.deliveries ?? [],
    outbox: snapshot.outbox ?? [],
    nextNotificationId: snapshot.nextNotificationId ?? 1,
  });
}

/**
 * Saves the state file after every change, at most once per turn of the event loop (see
 * StateFileWriter: the cost of a save does not grow with the history). The log is compacted first.
 */
function saveOnChange(
  state: EmulatorState,
  webhooks: WebhookSender,
  file: string,
  loaded: boolean,
): { flush(): void } {
  const writer = new StateFileWriter(file);
  const attempt = (write: () => void) => {
    try {
      write();
    } catch (error) {
      state.log(
        `could not save the state file ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'} (kept in memory; saved again at the next change)`,
        'error',
      );
    }
  };
  // A file read at the start is compacted (and an older format rewritten); a new one waits for a change.
  if (loaded) attempt(() => writer.compact(state, webhooks.snapshot()));
  let scheduled: NodeJS.Immediate | undefined;
  const save = () => {
    scheduled = undefined;
    attempt(() => writer.save(state, webhooks.snapshot()));
  };
  state.onChange = () => {
    scheduled ??= setImmediate(save);
  };
  return {
    flush() {
      if (scheduled) {
        clearImmediate(scheduled);
        save();
      }
    },
  };
}

/**
 * Starts a local Kudos emulator on 127.0.0.1 (port 0 picks a free port) and resolves once it listens.
 *
 * @example
 * ```ts
 * import { DEMO_CLIENT, startKudosEmulator } from 'kudos-emulator';
 * import passport from 'passport';
 * import { KudosStrategy } from 'passport-kudos';
 * const kudos = await startKudosEmulator();
 * const { clientID, clientSecret } = DEMO_CLIENT;
 * const callbackURL = 'http://localhost:3000/auth/kudos/callback';
 * passport.use(new KudosStrategy({ clientID, clientSecret, callbackURL, authURL: kudos.authURL, baseURL: kudos.baseURL }, (_a, _r, profile, done) => done(null, { id: profile.id })));
 * ```
 */
export async function startKudosEmulator(options: KudosEmulatorOptions = {}): Promise<KudosEmulator> {
  const resolved = resolveEmulatorOptions(options);
  // One emulator per state file: two would overwrite each other's changes.
  const unlock = resolved.state === undefined ? undefined : lockStateFile(resolved.state);
  let snapshot: EmulatorSnapshot | undefined;
  try {
    if (resolved.state !== undefined) {
      removeLeftovers(resolved.state);
      snapshot = readSnapshot(resolved.state);
    }
  } catch (error) {
    unlock?.();
    throw error;
  }
  const state = new EmulatorState(
    snapshot ? { ...resolved, jwtSecret: snapshot.jwtSecret } : resolved,
    new EmulatorClock(),
  );
  const timers = new Set<NodeJS.Timeout>();
  const webhooks = new WebhookSender(state, timers);
  const ops = new EmulatorOperations(state, webhooks, timers);
  if (snapshot) restore(state, ops, webhooks, snapshot);
  if (resolved.autoLogin !== undefined && !state.users.has(resolved.autoLogin)) {
    for (const timer of timers) clearTimeout(timer);
    unlock?.();
    throw new TypeError(`startKudosEmulator: "autoLogin" names no user: ${resolved.autoLogin}`);
  }
  const saver =
    resolved.state === undefined
      ? undefined
      : saveOnChange(state, webhooks, resolved.state, snapshot !== undefined);

  const router = new Router((route, ctx, ms) => {
    const operation = ctx.operation ?? route.operation;
    if (resolved.verbose && operation) state.log(operationLine(operation, ctx, ms), 'debug');
  });
  homeRoutes(router, state, webhooks);
  authorizeRoutes(router, state);
  loginRoutes(router, state);
  logoutRoutes(router, state);
  accountRoutes(router, state);
  tokenRoutes(router, state);
  apiRoutes(router, state);
  avatarRoutes(router, state);
  widgetRoutes(router, state, (request, metadataPosted) =>
    ops.startPayment(request, undefined, metadataPosted),
  );
  chainRoutes(router, state);
  adminRoutes(router, state, ops, webhooks);

  const server = http.createServer((req, res) => {
    if (!requestHostAllowed(req, resolved.host, resolved.allowedHosts)) {
      sendCode(res, 403, 'HOST_NOT_ALLOWED'); // a rebinding page, or a name it was not told of
      return;
    }
    if (applyApiHeaders(req, res)) return; // a CORS preflight, answered
    // The chain node's own REST interface (`chainURL`): the routes the service's proxy forwarded to,
    // answered in every generation. Else a route the service removed in 2026 (with `generation:
    // '2026'`): Express's 404 page, as it answers now.
    const chainPath = chainNodePath(req.url ?? '/');
    if (chainPath !== undefined) req.url = chainPath;
    else {
      const removed = removedPath(resolved.generation, new URL(req.url ?? '/', 'http://emulator').pathname);
      if (removed !== undefined) return sendExpressNotFound(res, req.method ?? 'GET', removed);
    }
    router
      .handle(req, res, (error) =>
        state.log(`internal error: ${error instanceof Error ? error.name : 'unknown'}`, 'error'),
      )
      // Sign-ins, grants, tokens, payments: a state file keeps them. A GET changes nothing worth
      // keeping, except an authorization page that grants at once (auto-login, or authorized before).
      .finally(() => {
        if (req.method !== 'GET' || req.url?.startsWith('/in/oauth')) state.changed();
      });
  });
  // A malformed request gets a plain 400, never a stack trace.
  server.on('clientError', (_error, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nBAD_REQUEST');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      state.closed = true;
      for (const timer of timers) clearTimeout(timer);
      unlock?.();
      reject(error);
    });
    server.listen(resolved.port, resolved.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  state.origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  state.log(`listening on ${state.origin}`);

  return emulatorHandle({ state, ops, webhooks, server, timers, saver, unlock, port });
}

/** What a started emulator is made of, for {@link emulatorHandle}. */
interface EmulatorParts {
  state: EmulatorState;
  ops: EmulatorOperations;
  webhooks: WebhookSender;
  server: http.Server;
  timers: Set<NodeJS.Timeout>;
  saver: { flush(): void } | undefined;
  unlock: (() => void) | undefined;
  port: number;
}

/** The running emulator as its users see it: its addresses and its test helpers. */
function emulatorHandle({
  state,
  ops,
  webhooks,
  server,
  timers,
  saver,
  unlock,
  port,
}: EmulatorParts): KudosEmulator {
  return {
    authURL: state.authURL,
    baseURL: state.baseURL,
    chainURL: state.origin + CHAIN_NODE_PREFIX,
    tokenURL: state.baseURL + KUDOS_API.token,
    revokeURL: state.baseURL + KUDOS_API.revoke,
    port,
    counters: state.counters,
    deliveries: webhooks.deliveries,
    webhookMode: webhooks.mode,
    authorize(args = {}) {
      const client = args.clientID ? state.clients.get(args.clientID) : state.clients.values().next().value;
      const user = args.user ?? state.users.keys().next().value;
      if (!client || !user || !state.users.has(user)) throw new Error('authorize(): unknown client or user');
      const scope = Array.isArray(args.scope) ? args.scope.join(' ') : (args.scope ?? 'profile');
      const params = new URLSearchParams({
        client_id: client.clientID,
        redirect_uri: args.redirectURI ?? client.redirectURIs[0] ?? '',
        scope,
      });
      if (args.state !== undefined) params.set('state', args.state);
      const checked = checkAuthorizationRequest(state, params);
      if (!checked.ok) throw new Error(`authorize(): ${checked.message}`);
      const { redirectURI, scopes } = checked.request;
      const code = issueCode(state, { clientID: client.clientID, userId: user, redirectURI, scope: scopes });
      state.changed();
      return {
        code,
        redirectURL: withQuery(redirectURI, { [state.options.codeParam]: code, state: args.state }),
      };
    },
    revokeAsUser(userId, clientID) {
      const revoked = revokeGrant(state, clientID, userId);
      state.changed();
      return revoked;
    },
    pay: (args) => ops.pay(args),
    resend: (id) => webhooks.resend(id),
    setNextPaymentOutcome: (outcome) => ops.setNextPaymentOutcome(outcome),
    failNextAuthorization(error) {
      if (typeof error !== 'string' || !SAFE_ERROR_CODE.test(error))
        throw new TypeError('failNextAuthorization(): "error" must be a word of letters, digits, _ . -');
      state.nextAuthorizeError = error;
    },
    setWebhook(agentId, webhookURL) {
      if (webhookURL !== undefined && !isHttpURL(webhookURL))
        throw new TypeError('setWebhook(): "webhookURL" must be an absolute http(s) URL');
      state.agents.set(agentId, { ...state.agents.get(agentId), id: agentId, webhookURL });
      state.changed();
    },
    setPaymentRedirectURIs(id, uris) {
      if (!uris.every((u) => URL.canParse(u)))
        throw new TypeError('setPaymentRedirectURIs(): not absolute URLs');
      const owner = state.agents.get(id) ?? state.users.get(id);
      if (!owner) throw new TypeError(`setPaymentRedirectURIs(): no agent or user "${id}"`);
      owner.paymentRedirectURIs = [...uris];
      state.changed();
    },
    addClient: (client) => void ops.addClient(client),
    addUser: (user) => void ops.addUser(user),
    advanceClock: (ms) => ops.advanceClock(ms),
    now: () => state.clock.now(),
    walletOf(id, prefix = LEGACY_PREFIX) {
      if (!state.users.has(id) && !state.agents.has(id))
        throw new TypeError(`walletOf(): no user or agent "${id}"`);
      if (prefix !== LEGACY_PREFIX && prefix !== MAIN_PREFIX)
        throw new TypeError('walletOf(): "prefix" must be "cosmos" or "kudos"');
      return walletAddress(id, prefix);
    },
    failNextMetadataPost: () => ops.failNextMetadataPost(),
    async idle() {
      await Promise.all([...state.transactions.values()].map((tx) => tx.settled));
      await webhooks.idle();
    },
    close() {
      saver?.flush();
      unlock?.();
      state.onChange = () => undefined;
      state.closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
