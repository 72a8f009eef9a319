import http from 'node:http';
import {
  type EmulatorClient,
  type KudosEmulator,
  type KudosEmulatorOptions,
  startKudosEmulator,
} from 'kudos-emulator';
import type { KudosWebhookHandler } from '../../packages/kudos-payments/src/index.js';
import { KudosStrategy, type KudosStrategyOptionsBase } from '../../src/index.js';
import { PAYMENT_USERS } from './emulator-user.js';
import { type Listening, listenLocal } from './listen.js';

// What the observability tests share: an emulator that pays through an agent with one delivery
// attempt, a strategy used outside a sign-in, and a receiver the agent's webhook points at.

/** The emulator of the payment tests: alice, bobby, the shop's agent, one quick delivery attempt. */
export function startPaymentsEmulator(options: KudosEmulatorOptions = {}): Promise<KudosEmulator> {
  return startKudosEmulator({
    users: PAYMENT_USERS,
    agents: [{ id: 'shop-agent' }],
    paymentDelayMs: 5,
    webhook: { attempts: 1, retryDelayMs: 10, timeoutMs: 2000 },
    ...options,
  });
}

/** A strategy of `client` for refresh, revoke and the API client (no sign-in goes through it). */
export function strategyOf(
  kudos: KudosEmulator,
  client: EmulatorClient,
  options: Partial<KudosStrategyOptionsBase> = {},
): KudosStrategy {
  return new KudosStrategy(
    {
      clientID: client.clientID,
      clientSecret: client.clientSecret,
      callbackURL: 'http://127.0.0.1/callback',
      authURL: kudos.authURL,
      baseURL: kudos.baseURL,
      revokeURL: kudos.revokeURL,
      ...options,
    },
    (_a, _r, profile, done) => done(null, profile),
  );
}

/** `hook` on a local server, the shop's agent delivering to it with `secret` in the query. */
export async function listenShop(
  kudos: KudosEmulator,
  hook: KudosWebhookHandler,
  secret: string,
): Promise<Listening> {
  const shop = await listenLocal(http.createServer((req, res) => hook(req, res)));
  kudos.setWebhook('shop-agent', `${shop.url}/webhooks/kudos?token=${secret}`);
  return shop;
}
