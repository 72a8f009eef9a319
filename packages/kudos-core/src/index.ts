/// <reference types="node" preserve="true" />
// The published types use Node's (node:http, Buffer, NodeJS): this makes them load under a
// TypeScript that includes no @types by default (TypeScript 7), for whichever entry point is imported.
/**
 * kudos-core: what every Kudos package shares, written once: the errors and the one table of their
 * codes, the tracing channels, the HTTP client every request to the service goes through, the
 * service's endpoints, limits, scopes, error words and token response, and the small helpers they are
 * built on (guards, a capped body reader, redaction, a constant-time comparison). The chain's side of
 * the contract (wallet addresses, transactions, notifications, the widget, the chain's search) is
 * `kudos-core/chain`; the Redis client adapter is `kudos-core/redis`; the OpenTelemetry bridge,
 * `kudos-core/otel`. Apps install passport-kudos or kudos-payments, which depend on this.
 *
 * @packageDocumentation
 */
export * from './base/error-codes.js';
export * from './base/errors.js';
export * from './base/guards.js';
export * from './base/numbers.js';
export * from './base/read-capped.js';
export * from './base/redact.js';
export * from './base/same-secret.js';
export * from './base/trace.js';
export * from './base/url-path.js';
export * from './protocol/endpoints.js';
export * from './protocol/fetch-call.js';
export * from './protocol/gone.js';
export * from './protocol/http-client.js';
export * from './protocol/limits.js';
export * from './protocol/profile.js';
export * from './protocol/scopes.js';
export * from './protocol/service-errors.js';
export * from './protocol/token-response.js';
