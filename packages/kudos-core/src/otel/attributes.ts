import { type Attributes, SpanKind } from '@opentelemetry/api';
import type { KudosTraceMessages, KudosTraceOperation } from '../base/trace.js';

// What a span of each operation is called and carries: the OpenTelemetry semantic conventions for
// HTTP clients on the requests to the service (token, refresh, revoke, API), and `kudos.*`
// attributes for the rest. Read from the channel's message only, which holds no secret.

type AnyMessage = KudosTraceMessages[KudosTraceOperation];

/** The span's name and kind, from the message at its start. */
export function spanStart(message: AnyMessage): { name: string; kind: SpanKind; attributes: Attributes } {
  switch (message.operation) {
    case 'token':
    case 'refresh':
    case 'revoke':
      return {
        name: 'POST',
        kind: SpanKind.CLIENT,
        attributes: httpAttributes('POST', message.url, message.operation),
      };
    case 'api':
      return {
        name: message.method,
        kind: SpanKind.CLIENT,
        attributes: httpAttributes(message.method, message.url, 'api'),
      };
    case 'authorize':
      return internal('authorize', { 'kudos.scope': message.scope });
    case 'store':
      return internal(
        'store',
        {
          'kudos.store': message.store,
          'kudos.store.method': message.method,
          ...(message.key === undefined ? {} : { 'kudos.key': message.key }),
        },
        `kudos.store.${message.method}`,
      );
    case 'notification':
      return internal('notification', { 'kudos.source': message.source });
    case 'confirm':
      return internal('confirm', { 'kudos.tx_hash': message.txHash });
    case 'callback':
      return internal('callback', {});
    case 'chain':
      return internal('chain', { 'url.full': message.url });
  }
}

/** An internal span: `kudos.<operation>` unless named otherwise, with its attributes. */
function internal(operation: KudosTraceOperation, attributes: Attributes, name = `kudos.${operation}`) {
  return { name, kind: SpanKind.INTERNAL, attributes: { 'kudos.operation': operation, ...attributes } };
}

function httpAttributes(method: string, url: string, operation: string): Attributes {
  const attributes: Attributes = { 'kudos.operation': operation, 'http.request.method': method };
  if (!URL.canParse(url)) return attributes;
  const parsed = new URL(url);
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  return { ...attributes, 'url.full': url, 'server.address': parsed.hostname, 'server.port': port };
}

/** What the span adds at its end: the outcome and what the operation learned. */
export function spanEnd(message: AnyMessage): Attributes {
  const attributes: Attributes = {};
  if (message.outcome !== undefined) attributes['kudos.outcome'] = message.outcome;
  if (message.code !== undefined) {
    attributes['kudos.error_code'] = message.code;
    attributes['error.type'] = message.code;
  }
  if ('statusCode' in message && message.statusCode !== undefined) {
    attributes['http.response.status_code'] = message.statusCode;
    if (message.statusCode >= 400 && attributes['error.type'] === undefined) {
      attributes['error.type'] = String(message.statusCode);
    }
  }
  if (message.operation === 'notification') {
    for (const [name, value] of [
      ['kudos.key', message.key],
      ['kudos.tx_hash', message.txHash],
      ['kudos.tx_status', message.txStatus],
      ['kudos.paid', message.paid],
      ['kudos.received', message.received],
      ['kudos.kept', message.kept],
    ] as const) {
      if (value !== undefined) attributes[name] = value;
    }
  }
  if (message.operation === 'confirm') {
    if (message.reason !== undefined) attributes['kudos.reason'] = message.reason;
    if (message.received !== undefined) attributes['kudos.received'] = message.received;
  }
  if (message.operation === 'chain') {
    for (const [name, value] of [
      ['kudos.requests', message.requests],
      ['kudos.recovered', message.recovered],
      ['kudos.reason', message.reason],
    ] as const) {
      if (value !== undefined) attributes[name] = value;
    }
  }
  if (message.operation === 'store' && message.answer !== undefined) {
    attributes['kudos.store.answer'] = message.answer;
  }
  return attributes;
}

/** Outcomes that are a failure of the operation (span status ERROR); a refusal or a decline is not. */
const FAILED = new Set(['error', 'token_error', 'failed', 'kept']);

/** Whether the span ends in error. */
export function failed(message: AnyMessage): boolean {
  return message.outcome === undefined ? message.error !== undefined : FAILED.has(message.outcome);
}
