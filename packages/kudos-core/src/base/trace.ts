import { type TracingChannel, tracingChannel } from 'node:diagnostics_channel';
import { KudosError } from './errors.js';

// The operations the Kudos packages publish on `node:diagnostics_channel` tracing channels, one
// channel per operation, named `passport-kudos:<operation>`. Each traced call publishes `start`,
// `end`, `asyncStart`, `asyncEnd` (and `error` when it fails) with one message object, filled in as
// the operation goes: read the outcome at `asyncEnd`. No message carries a secret, an authorization
// code, a token or a URL's query. docs/observability.md is the table for users; this is the one
// home of the names and shapes, which the otel entry points (kudos-core/otel) read too.

/** How an operation ended, in the words of its channel. Set before `asyncEnd`. */
interface Outcome<O extends string> {
  outcome?: O;
  /** The error's stable code (a `KudosError`'s `code`), when it failed with one. */
  code?: string;
  /** Set by Node when the operation failed (the `error` event): an error whose message names no secret. */
  error?: unknown;
}

/** `passport-kudos:authorize`: the redirect to the authorization page. */
export interface KudosAuthorizeMessage extends Outcome<'redirect' | 'error'> {
  operation: 'authorize';
  /** The authorization page, without its query (the state and PKCE challenge are not given). */
  authorizationURL: string;
  /** The scopes asked for, space-separated. */
  scope: string;
}

/** `passport-kudos:callback`: the login callback, from the request to Passport's action. */
export interface KudosCallbackMessage
  extends Outcome<'success' | 'denied' | 'state_mismatch' | 'failure' | 'token_error' | 'error'> {
  operation: 'callback';
}

/** `passport-kudos:token`, `passport-kudos:refresh`, `passport-kudos:revoke`: one request to the token (or revocation) endpoint. */
export interface KudosTokenRequestMessage extends Outcome<'success' | 'error'> {
  operation: 'token' | 'refresh' | 'revoke';
  method: 'POST';
  /** The endpoint, without credentials or query. */
  url: string;
  /** The HTTP status answered; absent when none came (a timeout, a refused connection). */
  statusCode?: number;
}

/** `passport-kudos:api`: one call of `client.fetch()` / `client.json()` (a refresh it needs is a `refresh` inside it). */
export interface KudosApiCallMessage extends Outcome<'success' | 'error'> {
  operation: 'api';
  method: string;
  /** The path called, without its query. */
  path: string;
  /** The full URL, without credentials or query. */
  url: string;
  /** The HTTP status of the last answer; absent when none came. */
  statusCode?: number;
}

/** Where a notification came from: a delivery, `redrive()` or `reconcileChain()` (also through `check()`). */
export type KudosNotificationPath = 'notification' | 'redrive' | 'reconcile';

/** `passport-kudos:notification`: one notification, from its arrival to the receiver's answer. */
export interface KudosNotificationMessage
  extends Outcome<'processed' | 'duplicate' | 'refused' | 'in_progress' | 'failed' | 'kept'> {
  operation: 'notification';
  source: KudosNotificationPath;
  /** The HTTP status answered to a delivery (not set for redrive and reconcile). */
  statusCode?: number;
  /** Dedupe key `txHash:status`, once the body was read. */
  key?: string;
  txHash?: string;
  txStatus?: string;
  /** Confirmed on the chain as paid to the shop (see the notification's `paid`). */
  paid?: boolean;
  /** What the shop's wallets got, in the smallest unit, as a decimal string. */
  received?: string;
  /** Kept for `redrive()` after it failed. */
  kept?: boolean;
}

/** `passport-kudos:confirm`: the confirmation of a notification (the chain lookup of `cosmosConfirmer`). */
export interface KudosConfirmMessage extends Outcome<'confirmed' | 'unconfirmed' | 'error'> {
  operation: 'confirm';
  txHash: string;
  /** Why it is not confirmed, when it is not. */
  reason?: string;
  /** What the shop's wallets got, as a decimal string, when confirmed. */
  received?: string;
}

/** `passport-kudos:chain`: one run of `reconcileChain()` (every wallet, both spellings of each). */
export interface KudosChainScanMessage extends Outcome<'complete' | 'incomplete' | 'busy' | 'error'> {
  operation: 'chain';
  /** The chain's REST interface read, without credentials or query. */
  url: string;
  /** Requests made to the search (and lookups of what an earlier run could not decide). */
  requests?: number;
  /** Transfers processed now that no notification had brought. */
  recovered?: number;
  /** With `incomplete`: why (a stable word, a colon, what the node answered). */
  reason?: string;
}

/** A dedupe store's methods, as the receiver calls them. */
export type KudosStoreMethod =
  | 'claim'
  | 'complete'
  | 'release'
  | 'extend'
  | 'keep'
  | 'kept'
  | 'checkpoint'
  | 'saveCheckpoint';

/** `passport-kudos:store`: one call of the receiver to its dedupe store. */
export interface KudosStoreMessage extends Outcome<'success' | 'error'> {
  operation: 'store';
  /** The store's class name (`RedisDedupeStore`, ...). */
  store: string;
  method: KudosStoreMethod;
  /** The dedupe key, for the calls about one. */
  key?: string;
  /** The claim's answer (`claimed`, `processing`, `done`). Not `result`: Node sets that one (to undefined here). */
  answer?: string;
}

/** Every channel's message, by operation. */
export interface KudosTraceMessages {
  authorize: KudosAuthorizeMessage;
  callback: KudosCallbackMessage;
  token: KudosTokenRequestMessage;
  refresh: KudosTokenRequestMessage;
  revoke: KudosTokenRequestMessage;
  api: KudosApiCallMessage;
  notification: KudosNotificationMessage;
  confirm: KudosConfirmMessage;
  store: KudosStoreMessage;
  chain: KudosChainScanMessage;
}

/** An operation that has a channel. */
export type KudosTraceOperation = keyof KudosTraceMessages;

/** The channel's name of each operation: `passport-kudos:<operation>`. */
export const KUDOS_TRACE_CHANNELS = {
  authorize: 'passport-kudos:authorize',
  callback: 'passport-kudos:callback',
  token: 'passport-kudos:token',
  refresh: 'passport-kudos:refresh',
  revoke: 'passport-kudos:revoke',
  api: 'passport-kudos:api',
  notification: 'passport-kudos:notification',
  confirm: 'passport-kudos:confirm',
  store: 'passport-kudos:store',
  chain: 'passport-kudos:chain',
} as const satisfies { [O in KudosTraceOperation]: `passport-kudos:${O}` };

/**
 * Each operation's channel, made when first asked for: loading the package makes none (ten tracing
 * channels are 50 channels), and a sign-in never asks for the payments' ones.
 */
const channels: { [O in KudosTraceOperation]?: TracingChannel<object, KudosTraceMessages[O]> } = {};

/** @internal The tracing channel of `operation` (the same object `tracingChannel(name)` answers anywhere in the process). */
export function kudosChannel<O extends KudosTraceOperation>(
  operation: O,
): TracingChannel<object, KudosTraceMessages[O]> {
  const made =
    channels[operation] ?? tracingChannel<unknown, KudosTraceMessages[O]>(KUDOS_TRACE_CHANNELS[operation]);
  channels[operation] = made as (typeof channels)[O];
  return made;
}

/** @internal The stable code of a failure, when it has one. */
export function codeOf(error: unknown): string | undefined {
  return error instanceof KudosError ? error.code : undefined;
}

/**
 * Whether anything subscribes to `operation`'s channel: a caller whose untraced path has no promise
 * (a login step) asks first, and runs as it would without the channels.
 *
 * @internal
 */
export function isTraced(operation: KudosTraceOperation): boolean {
  return kudosChannel(operation).hasSubscribers;
}

/**
 * @internal
 * Runs `run` as one traced operation on its channel. With no subscriber nothing is built: `run`
 * gets `undefined` and is called as it is. Otherwise it gets the message `make()` builds, to fill
 * in as it goes; a rejection sets `outcome: 'error'` and the code unless `run` set them. The
 * channel's `result` is never the value (a token set must not reach a subscriber).
 */
export function traced<O extends KudosTraceOperation, T>(
  operation: O,
  make: () => KudosTraceMessages[O],
  run: (message: KudosTraceMessages[O] | undefined) => Promise<T>,
): Promise<T> {
  const channel = kudosChannel(operation);
  if (!channel.hasSubscribers) return run(undefined);
  const message = make();
  let value: T;
  return channel
    .tracePromise(async () => {
      try {
        value = await run(message);
      } catch (error) {
        // Every operation whose failure is not simply `error` (a notification) sets its own outcome.
        const ended = message as Outcome<string>;
        ended.outcome ??= 'error';
        ended.code ??= codeOf(error);
        throw error;
      }
    }, message)
    .then(() => value);
}

/** @internal A URL fit for a trace: no credentials, no query, no fragment. */
export function traceURL(url: string): string {
  if (!URL.canParse(url)) return '';
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
