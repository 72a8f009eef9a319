import { withoutTrailingSlashes } from '../base/url-path.js';

/**
 * Where the service's operations live (docs/kudos-service.md#wallet-addresses): pages under `{authURL}`,
 * the API under `{baseURL}`. The strategy's defaults, the API calls and the emulator's routes are
 * all made from this table, so a path is written once.
 */
export const KUDOS_PAGES = {
  /** The authorization page (docs/kudos-service.md#authorization-page). */
  authorize: '/in/oauth/',
  /** The payment widget (docs/kudos-service.md#payment-widget). */
  widget: '/in/widget/pay',
} as const;

/** API operations, relative to `{baseURL}`; `{name}` is a path parameter. */
export const KUDOS_API = {
  /** Token exchange and refresh (docs/kudos-service.md#token-exchange). */
  token: '/oauth/access_token',
  /** Token revocation (docs/kudos-service.md#refresh-and-revocation). */
  revoke: '/oauth/revoke',
  /** The signed-in user's profile (docs/kudos-service.md#authenticated-api). */
  profile: '/users/profile',
  /** Another user's public profile (docs/kudos-service.md#public-lookups). */
  user: '/users/id/{id}/min',
  /** The public profile of the user with a wallet address (docs/kudos-service.md#public-lookups). */
  userByAddress: '/users/addr/{address}/min',
  /** One transaction record, no token needed (docs/kudos-service.md#transactions). */
  transaction: '/tx/id/{hash}',
  /** A user's transaction records, newest first (docs/kudos-service.md#transactions). */
  history: '/tx/history/user/{id}',
} as const;

/**
 * The chain's REST (Cosmos LCD) interface, which the service proxies under `{baseURL}{lcd}`
 * (docs/kudos-service.md#chain-lookup): what `cosmosConfirmer` reads and the emulator answers.
 */
export const KUDOS_CHAIN = {
  lcd: '/cosmos/lcd',
  /** A transaction (`GetTxResponse`), relative to the LCD. */
  tx: '/cosmos/tx/v1beta1/txs/{hash}',
  /** The chain's transaction search by event (`?events=transfer.recipient='ADDRESS'`, paged), relative to the LCD. */
  txsByEvent: '/cosmos/tx/v1beta1/txs',
  /** The legacy lookup, in the old REST shape: no longer served since the chain's v4 release (501). */
  legacyTx: '/txs/{hash}',
  balances: '/cosmos/bank/v1beta1/balances/{address}',
  delegations: '/cosmos/staking/v1beta1/delegations/{address}',
} as const;

/**
 * The chain's REST interface an option set names: `restURL` as given, else the service's proxy
 * under `{baseURL}/cosmos/lcd`; undefined when neither is given. Unchecked: each caller refuses a
 * bad one in its own words (the function the user called, the option as the docs spell it).
 */
export function chainRestURL(restURL: unknown, baseURL: unknown): unknown {
  return (
    restURL ??
    (typeof baseURL === 'string' ? `${withoutTrailingSlashes(baseURL)}${KUDOS_CHAIN.lcd}` : undefined)
  );
}

/** `path` with each `{name}` replaced by its percent-encoded value. */
export function apiPath(path: string, params: Readonly<Record<string, string>> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}
