// Starts the example: the embedded Kudos emulator when no Kudos URLs are configured, then the app.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { DEMO_USERS, startKudosEmulator } from 'kudos-emulator';
import { createExampleApp, EXAMPLE_SCOPES } from './app.js';
import { readConfig } from './config.js';
import { createStores } from './stores.js';

/** How often the chain is read for payments that no notification brought: every minute. */
const RECONCILE_EVERY_MS = 60_000;

/**
 * The shop's wallet: the address the chain pays when someone pays the tip receiver, from the
 * service's public profile of that user (`GET {baseURL}/users/id/{id}/min`).
 * @param {string} baseURL
 * @param {string} user
 */
async function walletOf(baseURL, user) {
  const res = await fetch(`${baseURL}/users/id/${encodeURIComponent(user)}/min`, {
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
  const profile = res?.ok ? await res.json().catch(() => undefined) : undefined;
  // Either spelling of the account (kudosWallet where the service gives it): the receiver matches both.
  // `wallet` is an old Ethereum-style address, never the chain's: only these two are.
  const wallet = profile?.kudosWallet ?? profile?.cosmosWallet;
  if (typeof wallet !== 'string' || wallet === '') {
    throw new Error(`could not look up the wallet of KUDOS_SHOP_USER "${user}": set KUDOS_SHOP_WALLET`);
  }
  return wallet;
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {{ log?: (line: string) => void }} [options]
 */
export async function startExample(env = process.env, { log = () => undefined } = {}) {
  const config = readConfig(env);
  let emulator;
  let authURL = config.authURL;
  let baseURL = config.baseURL;
  let chainURL = config.chainURL;
  if (!authURL || !baseURL) {
    const redirectURIs = ['http://localhost/auth/kudos/callback', 'http://127.0.0.1/auth/kudos/callback'];
    if (URL.canParse(config.callbackURL)) redirectURIs.push(config.callbackURL);
    emulator = await startKudosEmulator({
      port: config.emulatorPort ?? 0,
      clients: [
        {
          clientID: config.clientID,
          clientSecret: config.clientSecret,
          name: 'Kudos Example Shop',
          redirectURIs,
          // What a sign-in that asks for no scope is granted: the shop's history needs `read`.
          defaultScopes: [...EXAMPLE_SCOPES, 'read'],
        },
      ],
      users: [
        ...DEMO_USERS,
        {
          id: config.agentID,
          password: randomBytes(16).toString('base64url'),
          displayName: 'Example shop agent',
        },
      ],
      agents: [{ id: config.agentID }],
      log: (line) => log(line),
    });
    authURL = emulator.authURL;
    baseURL = emulator.baseURL;
    chainURL ??= emulator.chainURL; // the embedded emulator's own chain node
  }
  const shopWallet = config.shopWallet ?? (await walletOf(baseURL, config.shopUser));
  const stores = await createStores(config, log);
  const { app, metrics, reconcileChain } = createExampleApp({
    config,
    authURL,
    baseURL,
    chainURL,
    stores,
    shopWallet,
    log,
  });
  // At start and every minute, the chain: payments no notification and no return page brought (each
  // run reads what is new since the last one; one still running is joined, not run twice).
  const fromChain = () =>
    reconcileChain().then(
      (result) =>
        result.incomplete &&
        log(`reconcile from the chain read less than its window: ${result.incompleteReason}`),
      (error) => log(`reconcile from the chain failed: ${error?.code ?? error}`),
    );
  void fromChain();
  const reconciling = setInterval(fromChain, RECONCILE_EVERY_MS);
  reconciling.unref();
  const server = app.listen(config.port, config.host);
  await once(server, 'listening');
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  const loopback = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  // "Setup by the operator": the embedded emulator learns the example's webhook URL, with its secret.
  emulator?.setWebhook(
    config.agentID,
    `http://${loopback}:${port}/webhooks/kudos?token=${config.webhookSecret}`,
  );
  // ...and the example's tip page on the agent's payment redirect whitelist: the widget sends the
  // payer back only to an address on it (exact match), as the real service does.
  emulator?.setPaymentRedirectURIs(config.agentID, [
    `http://localhost:${port}/tip/done`,
    `http://127.0.0.1:${port}/tip/done`,
  ]);
  return {
    url: `http://localhost:${port}`,
    port,
    authURL,
    baseURL,
    emulator,
    config,
    stores,
    reconcileChain,
    async close() {
      clearInterval(reconciling);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await metrics.close();
      await stores.close();
      await emulator?.close();
    },
  };
}
