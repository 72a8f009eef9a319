import type { KudosRawTx } from './transaction.js';

/**
 * The payment notification as the service POSTs it to an agent's webhook: `{ tx, metadata }`
 * (docs/kudos-service.md#notifications). The emulator's sender is typed by it.
 */

/** `metadata.kudosPay`: the widget's values, each only when not empty (docs/kudos-service.md#notifications). */
export interface KudosPayParameters {
  toIds?: string[];
  amounts?: string[];
  agentId?: string;
  agentFee?: string;
  redirectUri?: string;
  remarks?: string;
  blocking?: string;
  state?: string;
  [key: string]: unknown;
}

/**
 * `metadata` as sent (docs/kudos-service.md#notifications): written by the payer, so only hints.
 * The service puts the widget's values inside `kudosPay`; the top-level keys are read too.
 */
interface KudosRawMetadata {
  kudosPay?: KudosPayParameters;
  toIds?: string[];
  amounts?: string[];
  agentID?: string;
  agentId?: string;
  agentFee?: string;
  redirectUri?: string;
  remarks?: string;
  /** As the widget was given it: observed as a string (`"true"`). */
  blocking?: boolean | string;
  state?: string;
  [key: string]: unknown;
}

/** The notification body as sent: `{ tx, metadata }`. */
export interface KudosRawNotification {
  tx: KudosRawTx;
  metadata: KudosRawMetadata;
}
