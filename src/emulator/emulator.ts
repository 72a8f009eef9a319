import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmulatorClock } from './clock.js';
import type { EmulatorClient, EmulatorUser, KudosEmulatorOptions } from './emulator-options.js';
import { resolveEmulatorOptions } from './emulator-options.js';
import { issueCode, revokeGrant } from './grants.js';
import { sendHtml, withQuery } from './http.js';
import {
  checkPayment,
  createTransaction,
  type EmulatorTransaction,
  type PaymentOutcome,
  type PaymentRequest,
} from './payments.js';
import { ROUTES } from './route-table.js';
import { Router } from './router.js';
import { accountRoutes } from './routes/account.js';
import { apiRoutes } from './routes/api.js';
import { authorizeRoutes, checkAuthorizationRequest } from './routes/authorize.js';
import { avatarRoutes } from './routes/avatar.js';
import { chainRoutes } from './routes/chain.js';
import { loginRoutes } from './routes/login.js';
import { tokenRoutes } from './routes/token.js';
import { widgetRoutes } from './routes/widget.js';
import { type EmulatorCounters, EmulatorState } from './state.js';
import { homePage } from './views/home-page.js';
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

/** Arguments of {@link KudosEmulator.pay}: a widget payment, made without a browser, checked as the widget checks it. */
export interface PayArguments {
  /** Payer user ID. */
  from: string;
  /** Receiver user ID, or several. */
  to: string | readonly string[];
  /** Tokens (decimal string), or one per receiver. */
  amount: string | readonly string[];
  /** Agent user ID. */
  via?: string;
  /** Extra tokens to the agent (needs `via`). */
  fee?: string;
  remarks?: string;
  state?: string;
  /** Must be on the agent's (or receiver's) payment redirect whitelist. */
  redirectURI?: string;
  blocking?: boolean;
  /** Final status to force; default `success`. */
  outcome?: PaymentOutcome;
}

/** A running emulator and its test helpers. */
export interface KudosEmulator {
  /** `{auth_url}`: pass as `authURL` to `KudosStrategy`. */
  readonly authURL: string;
  /** `{base_url}`: pass as `baseURL` to `KudosStrategy`. */
  readonly baseURL: string;
  /** Token endpoint `{base_url}/oauth/access_token` (also takes `grant_type=refresh_token`). */
  readonly tokenURL: string;
  /** Client revocation endpoint `{base_url}/oauth/revoke` (RFC 7009 form; the emulator's choice). */
  readonly revokeURL: string;
  /** Port it listens on. */
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
  /** Forces the outcome of the next payment confirmed in the widget. */
  setNextPaymentOutcome(outcome: PaymentOutcome): void;
  /** Sets up (or removes) an agent's webhook: the operator's job in the real service. */
  setWebhook(agentId: string, webhookURL: string | undefined): void;
  /**
   * Sets the payment redirect whitelist of an agent (payments `via` it) or, when no agent has the
   * ID, of a user (payments to them without `via`): the operator's job in the real service.
   */
  setPaymentRedirectURIs(id: string, uris: readonly string[]): void;
  /** Registers another client. */
  addClient(client: EmulatorClient): void;
  /** Registers another user. */
  addUser(user: EmulatorUser): void;
  /** Moves the emulator's clock forward (tokens, codes and avatar URLs expire by it). */
  advanceClock(ms: number): void;
  /** The emulator's current time, epoch milliseconds. */
  now(): number;
  /** Resolves when every payment has settled and no webhook delivery or retry is pending. */
  idle(): Promise<void>;
  /** Stops the server and every timer. */
  close(): Promise<void>;
}

/**
 * Starts a local Kudos emulator on 127.0.0.1 (port 0 picks a free port) and resolves once it listens.
 *
 * @example
 * const kudos = await startKudosEmulator();
 * const { clientID, clientSecret } = DEMO_CLIENT;
 * passport.use(new KudosStrategy({ clientID, clientSecret, callbackURL, authURL: kudos.authURL, baseURL: kudos.baseURL }, verify));
 */
export async function startKudosEmulator(options: KudosEmulatorOptions = {}): Promise<KudosEmulator> {
  const resolved = resolveEmulatorOptions(options);
  const state = new EmulatorState(resolved, new EmulatorClock());
  const timers = new Set<NodeJS.Timeout>();
  const webhooks = new WebhookSender(state, timers);
  let nextOutcome: PaymentOutcome | undefined;

  const pay = (request: PaymentRequest, outcome?: PaymentOutcome): EmulatorTransaction => {
    const final = outcome ?? nextOutcome ?? 'success';
    nextOutcome = undefined;
    const tx = createTransaction(state, request, final, timers, (t, event) =>
      webhooks.onTransaction(t, event),
    );
    state.transactions.set(tx.txHash, tx);
    return tx;
  };

  const router = new Router();
  router.on(ROUTES.home, (ctx) => sendHtml(ctx.res, 200, homePage(state)));
  authorizeRoutes(router, state);
  loginRoutes(router, state);
  accountRoutes(router, state);
  tokenRoutes(router, state);
  apiRoutes(router, state);
  avatarRoutes(router, state);
  widgetRoutes(router, state, (request) => pay(request));
  chainRoutes(router, state);

  const server = http.createServer((req, res) => {
    void router.handle(req, res, (error) => {
      state.log(`internal error: ${error instanceof Error ? error.name : 'unknown'}`);
    });
  });
  // A malformed request gets a plain 400, never a stack trace.
  server.on('clientError', (_error, socket) => {
    if (socket.writable)
      socket.end('HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\n\r\nBAD_REQUEST');
    else socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  state.origin = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  state.log(`listening on ${state.origin}`);

  return {
    authURL: state.authURL,
    baseURL: state.baseURL,
    tokenURL: `${state.baseURL}/oauth/access_token`,
    revokeURL: `${state.baseURL}/oauth/revoke`,
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
      return { code, redirectURL: withQuery(redirectURI, { [resolved.codeParam]: code, state: args.state }) };
    },
    revokeAsUser: (userId, clientID) => revokeGrant(state, clientID, userId),
    pay({ outcome, from, to, amount, redirectURI, blocking, ...rest }) {
      const params = new URLSearchParams();
      const values = {
        ...rest,
        to: [to].flat().join(','),
        amount: [amount].flat().join(','),
        redirect_uri: redirectURI,
      };
      for (const [name, value] of Object.entries(values))
        if (value !== undefined) params.set(name, String(value));
      if (blocking) params.set('blocking', 'true');
      if (!state.users.has(from)) throw new Error('pay(): "from" must name an existing user.');
      const checked = checkPayment(state, params, from);
      if (!checked.ok) throw new Error(`pay(): ${checked.message}`);
      return pay(checked.request, outcome);
    },
    setNextPaymentOutcome(outcome) {
      nextOutcome = outcome;
    },
    setWebhook(agentId, webhookURL) {
      if (webhookURL !== undefined && !URL.canParse(webhookURL))
        throw new TypeError('setWebhook(): not an absolute URL');
      state.agents.set(agentId, { ...state.agents.get(agentId), id: agentId, webhookURL });
    },
    setPaymentRedirectURIs(id, uris) {
      if (!uris.every((u) => URL.canParse(u)))
        throw new TypeError('setPaymentRedirectURIs(): not absolute URLs');
      const owner = state.agents.get(id) ?? state.users.get(id);
      if (!owner) throw new TypeError(`setPaymentRedirectURIs(): no agent or user "${id}"`);
      owner.paymentRedirectURIs = [...uris];
    },
    addClient(client) {
      const [checked] = resolveEmulatorOptions({ clients: [client] }).clients;
      if (checked) state.clients.set(checked.clientID, checked);
    },
    addUser(user) {
      const [checked] = resolveEmulatorOptions({ users: [user] }).users;
      if (checked) state.users.set(checked.id, checked);
    },
    advanceClock: (ms) => state.clock.advance(ms),
    now: () => state.clock.now(),
    async idle() {
      await Promise.all([...state.transactions.values()].map((tx) => tx.settled));
      await webhooks.idle();
    },
    close() {
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
