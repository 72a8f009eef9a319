import http from 'node:http';
import { type KudosEmulator, type KudosEmulatorOptions, startKudosEmulator } from 'kudos-emulator';
import { afterAll, afterEach, beforeAll } from 'vitest';
import {
  type KudosPaidOrder,
  type KudosPaymentException,
  type KudosPayments,
  type KudosPaymentsOptions,
  type KudosRefusal,
  kudosPayments,
} from '../../packages/kudos-payments/src/index.js';
import { PAYMENT_USERS } from './emulator-user.js';
import { type Listening, listenLocal } from './listen.js';

/** The webhook secret of the payment tests' shop. */
export const SHOP_SECRET = 'payments-test-secret-0123456789';

/**
 * A shop on kudosPayments() against an emulator, its webhook on a real server (port 0): bobby's
 * wallet, bobby as `to`, `shop-agent` as agent; what its onPaid, onException and onError were told.
 */
export class PaymentsShop {
  readonly paid: KudosPaidOrder[] = [];
  readonly exceptions: KudosPaymentException[] = [];
  readonly errors: KudosRefusal[] = [];
  failPaid = false;
  payments!: KudosPayments;
  server!: Listening;

  constructor(private readonly kudos: KudosEmulator) {}

  async start(options: Partial<KudosPaymentsOptions> = {}): Promise<this> {
    this.payments = kudosPayments({
      secret: SHOP_SECRET,
      authURL: this.kudos.authURL,
      baseURL: this.kudos.baseURL,
      wallet: this.kudos.walletOf('bobby'),
      shopUser: 'bobby',
      agent: 'shop-agent',
      leaseMs: 300,
      handlerTimeoutMs: 2000,
      onPaid: async (paid) => {
        if (this.failPaid) throw new Error('the shop database is down');
        this.paid.push(paid);
      },
      onException: (exception) => {
        this.exceptions.push(exception);
      },
      onError: (error) => {
        this.errors.push(error);
      },
      ...options,
    });
    this.server = await listenLocal(http.createServer((req, res) => this.payments.webhook(req, res)));
    this.connect();
    return this;
  }

  /** The agent's webhook points at this shop (with the secret unless told otherwise). */
  connect(secret = true): void {
    this.kudos.setWebhook('shop-agent', secret ? `${this.server.url}?token=${SHOP_SECRET}` : this.server.url);
  }

  /** Times onPaid was told of `reference`. */
  paidTimes(reference: string): number {
    return this.paid.filter((p) => p.order.reference === reference).length;
  }
}

/**
 * One emulator for a describe block (its real sender quick to retry: 3 attempts 20 ms apart), and the
 * block's shop, closed after each test once every payment and delivery is over.
 */
export function paymentsFixture(options: KudosEmulatorOptions = {}) {
  const fixture = {
    kudos: undefined as unknown as KudosEmulator,
    shop: undefined as PaymentsShop | undefined,
  };
  beforeAll(async () => {
    fixture.kudos = await startKudosEmulator({
      users: PAYMENT_USERS,
      paymentDelayMs: 5,
      webhook: { attempts: 3, retryDelayMs: 20, timeoutMs: 2000 },
      ...options,
    });
  });
  afterAll(() => fixture.kudos?.close());
  afterEach(async () => {
    await fixture.kudos.idle();
    await fixture.shop?.server.close();
    fixture.shop = undefined;
  });
  return fixture;
}
