/// <reference types="node" preserve="true" />
/**
 * kudos-core/chain: the chain's side of the Kudos contract, for kudos-payments and the
 * `kudos-emulator` package: wallet address spellings, transactions, notifications, the widget's
 * parameters and the chain's search. Kept apart from `kudos-core` because its bech32 library would
 * cost every `require('passport-kudos')` some milliseconds. What the emulator sends is typed by the
 * same declarations the library reads it with. Nothing generic: a guard, a body reader or a secret
 * comparison is no part of the contract, and every name here is exported by this entry point alone.
 * Never loaded by the package's root entry point.
 *
 * @packageDocumentation
 */

export * from './address.js';
export * from './chain-search.js';
export * from './notification.js';
export * from './transaction.js';
export * from './widget.js';
