/**
 * passport-kudos/webhook: receive Kudos payment notifications (section 6) safely: typed,
 * verified as far as they can be, and processed once.
 *
 * @example
 * app.post('/webhooks/kudos', kudosWebhook({ secret, confirm: cosmosConfirmer({ restURL }), onNotification }));
 *
 * @packageDocumentation
 */
export { checkMediaType, parseJsonText, type WebhookRequest } from './body.js';
export {
  type CosmosConfirmerOptions,
  checkChainTransaction,
  cosmosConfirmer,
  type KudosConfirmer,
} from './confirm.js';
export { type KudosDedupeStore, MemoryDedupeStore, type MemoryDedupeStoreOptions } from './dedupe.js';
export { KudosWebhookError, type KudosWebhookErrorCode, WEBHOOK_ERROR_STATUS } from './errors.js';
export {
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_LEASE_MS,
  DEFAULT_WEBHOOK_LIMIT,
  type KudosWebhookErrorHandler,
  type KudosWebhookHandler,
  type KudosWebhookOptions,
  kudosWebhook,
} from './middleware.js';
export { parseKudosNotification, sanitize } from './parse.js';
export { classifyStatusChange, type KudosStatusChange } from './progression.js';
export { REDACTED } from './secret.js';
export type * from './types.js';
