/** Access token lifetime in seconds (docs/kudos-service.md#limits). */
export const ACCESS_TOKEN_LIFETIME_S = 3600;

/**
 * Default time limit of one request to the service (answer and body), in milliseconds: the token
 * endpoint, the API and the chain's reads alike. The service states none; one default for all, so that a
 * `timeout` option means the same thing wherever it is given.
 */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** The smallest unit of the token, as `denom` names it (docs/kudos-service.md#observed-values). */
export const DENOM = 'nanokudos';

// Typed `bigint`, not the literal: a declaration file with a BigInt literal does not compile for a
// target before ES2020 (a JavaScript app checked with no tsconfig).
/** Units of {@link DENOM} in one whole token. */
export const UNITS_PER_TOKEN: bigint = 1_000_000_000n;
