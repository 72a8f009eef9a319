/// <reference types="node" preserve="true" />
/**
 * passport-kudos/contract: the wire contract of the Kudos service, as this library reads it, for the
 * programs that speak it from the other end (the `kudos-emulator` package first): the endpoints,
 * the service's error words and limits, the shapes of its token responses, transactions and
 * notifications, wallet address spellings, and the helpers that read them (an address's spellings, a
 * widget amount's units, a webhook URL's secret hidden). What the emulator sends is typed by the
 * same declarations the library reads it with. Nothing generic: a guard, a body reader or a secret
 * comparison is no part of the contract, and every name here is exported by this entry point alone.
 * Never loaded by the package's root entry point.
 *
 * @packageDocumentation
 */

export { SAFE_ERROR_CODE } from '../base/errors.js';
export { MIN_WEBHOOK_SECRET_LENGTH, redactWebhookURL } from '../base/redact.js';
export {
  type AddressPrefix,
  accountKey,
  checkAddress,
  LEGACY_PREFIX,
  MAIN_PREFIX,
  spellAddress,
} from '../protocol/address.js';
export { CHAIN_EVENT_FILTER, CHAIN_SEARCH_MAX_LIMIT } from '../protocol/chain-search.js';
export { KUDOS_API, KUDOS_CHAIN, KUDOS_PAGES } from '../protocol/endpoints.js';
export { ACCESS_TOKEN_LIFETIME_S, DENOM, UNITS_PER_TOKEN } from '../protocol/limits.js';
export type { KudosPayParameters, KudosRawNotification } from '../protocol/notification.js';
export { KUDOS_SCOPE_DESCRIPTIONS } from '../protocol/scopes.js';
export { SERVICE_ERRORS, type ServiceErrorWord } from '../protocol/service-errors.js';
export type { KudosTokenResponseAsSent, ProfileField } from '../protocol/token-response.js';
export {
  type KudosRawAmount,
  type KudosRawTx,
  type KudosTxStatus,
  TX_STATUSES,
} from '../protocol/transaction.js';
export {
  MAX_MEMO_BYTES,
  MAX_REMARKS,
  TOKEN_AMOUNT,
  tokensToUnits,
  WIDGET_PARAMS,
} from '../protocol/widget.js';
