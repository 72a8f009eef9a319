// Configuration of the example app, from environment variables.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';

/**
 * @typedef {object} ExampleConfig
 * @property {number} port              PORT (default 3000; 0 picks a free port)
 * @property {string} host              HOST to bind (default 127.0.0.1)
 * @property {string | undefined} authURL   KUDOS_AUTH_URL; with KUDOS_BASE_URL unset too, the emulator runs in-process
 * @property {string | undefined} baseURL   KUDOS_BASE_URL
 * @property {string} clientID          KUDOS_CLIENT_ID
 * @property {string} clientSecret      KUDOS_CLIENT_SECRET
 * @property {string} callbackURL       CALLBACK_URL (default: /auth/kudos/callback on the request's own host)
 * @property {string} sessionSecret     SESSION_SECRET (default: random per process)
 * @property {boolean} sessionSecretGiven
 * @property {string} agentID           KUDOS_AGENT_ID: the example's agent account, used as `via`
 * @property {string} webhookSecret     KUDOS_WEBHOOK_SECRET (default: random per process)
 * @property {string | undefined} chainURL  KUDOS_CHAIN_URL: a chain node's REST interface (default: the embedded emulator's own; against a real Kudos, set it)
 * @property {string} shopUser          KUDOS_SHOP_USER: the Kudos user tips go to, the shop's own account (default bobby)
 * @property {string | undefined} shopWallet  KUDOS_SHOP_WALLET: the shop's wallet address, the only one whose payments count (default: KUDOS_SHOP_USER's, looked up at start)
 * @property {string} dataDir           DATA_DIR: where the webhook's durable store lives (default example/data, ignored by git)
 * @property {string | undefined} redisURL  REDIS_URL: share sessions, webhook dedupe and tokens through one Redis server
 * @property {string[] | undefined} redisClusterNodes  REDIS_CLUSTER_NODES: the same through a Redis Cluster, its seed nodes as host:port,host:port
 * @property {string | undefined} redisSessionsURL  REDIS_SESSIONS_URL: the sessions' own Redis (its own memory limit, an evicting policy), never the payments' (default: each instance's memory)
 * @property {number | undefined} emulatorPort  KUDOS_EMULATOR_PORT (default: a free port)
 * @property {boolean} trustProxy       TRUST_PROXY=1 behind a TLS-terminating proxy
 * @property {string[]} scrapers        SCRAPER_ADDRESSES: addresses besides the loopback that may read /healthz and /metrics (comma-separated)
 * @property {string | undefined} scraperToken  SCRAPER_TOKEN: a bearer token that lets any address read /healthz and /metrics
 */

/** The demo client the embedded emulator registers for the example. */
export const EXAMPLE_CLIENT = { clientID: 'kudos-example-shop', clientSecret: 'kudos-example-shop-secret' };

/**
 * REDIS_CLUSTER_NODES as a list of host:port, or undefined when unset.
 * @param {string | undefined} value
 */
function clusterNodes(value) {
  if (value === undefined || value.trim() === '') return undefined;
  const nodes = value.split(',').map((node) => node.trim());
  for (const node of nodes) {
    if (!/^[^\s:/]+:\d{1,5}$/.test(node)) {
      throw new Error(
        'REDIS_CLUSTER_NODES must be a comma-separated list of host:port (for example 10.0.0.1:6379,10.0.0.2:6379)',
      );
    }
  }
  return nodes;
}

/**
 * Reads the configuration. Throws an Error naming the variable when it is unusable.
 * @param {NodeJS.ProcessEnv} env
 * @returns {ExampleConfig}
 */
export function readConfig(env = process.env) {
  const external = Boolean(env.KUDOS_AUTH_URL || env.KUDOS_BASE_URL);
  if (external) {
    for (const name of ['KUDOS_AUTH_URL', 'KUDOS_BASE_URL', 'KUDOS_CLIENT_ID', 'KUDOS_CLIENT_SECRET']) {
      if (!env[name]) throw new Error(`${name} is required when KUDOS_AUTH_URL or KUDOS_BASE_URL is set`);
    }
  }
  if (env.NODE_ENV === 'production' && !env.SESSION_SECRET) {
    throw new Error(
      'SESSION_SECRET is required when NODE_ENV=production (32 characters or more): it signs the sessions and seals the sign-in state',
    );
  }
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error('PORT must be a port number');
  const random = () => randomBytes(24).toString('base64url');
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    authURL: env.KUDOS_AUTH_URL,
    baseURL: env.KUDOS_BASE_URL,
    clientID: env.KUDOS_CLIENT_ID ?? EXAMPLE_CLIENT.clientID,
    clientSecret: env.KUDOS_CLIENT_SECRET ?? EXAMPLE_CLIENT.clientSecret,
    callbackURL: env.CALLBACK_URL ?? '/auth/kudos/callback',
    sessionSecret: env.SESSION_SECRET ?? random(),
    sessionSecretGiven: Boolean(env.SESSION_SECRET),
    agentID: env.KUDOS_AGENT_ID ?? 'kudos-example-agent',
    webhookSecret: env.KUDOS_WEBHOOK_SECRET ?? random(),
    chainURL: env.KUDOS_CHAIN_URL,
    shopUser: env.KUDOS_SHOP_USER ?? 'bobby',
    shopWallet: env.KUDOS_SHOP_WALLET,
    dataDir: env.DATA_DIR ?? fileURLToPath(new URL('./data/', import.meta.url)),
    redisURL: env.REDIS_URL,
    redisClusterNodes: clusterNodes(env.REDIS_CLUSTER_NODES),
    redisSessionsURL: env.REDIS_SESSIONS_URL,
    emulatorPort: env.KUDOS_EMULATOR_PORT === undefined ? undefined : Number(env.KUDOS_EMULATOR_PORT),
    trustProxy: env.TRUST_PROXY === '1',
    scrapers: (env.SCRAPER_ADDRESSES ?? '')
      .split(',')
      .map((address) => address.trim())
      .filter(Boolean),
    scraperToken: env.SCRAPER_TOKEN || undefined,
  };
}
