// A stand-in for the chain's REST lookup (`GET {restURL}/cosmos/tx/v1beta1/txs/{hash}`), for tests and
// benchmarks that need a chain answer without the emulator: one successful transaction with a memo and
// its bank messages, in the shape cosmosConfirmer reads. Plain JavaScript: the benchmark apps import it too.
import http from 'node:http';

/**
 * Wallet addresses for tests and benchmarks that need no emulator: real bech32 addresses (valid
 * checksums, as `receiver` must be), each one account in its legacy (`cosmos1…`) spelling, with the
 * same account's main-prefix (`kudos1…`) spelling beside it.
 */
export const WALLETS = {
  shop: 'cosmos1prtuq05nhujtkqssvre0rjtwhg2crsnupw3ez2',
  shopMain: 'kudos1prtuq05nhujtkqssvre0rjtwhg2crsnuv0rsj7',
  payer: 'cosmos14gqev8wgdffha6mz26ykfete7e9r3wcdappve7',
  payerMain: 'kudos14gqev8wgdffha6mz26ykfete7e9r3wcdsqn9f2',
  other: 'cosmos12efkd3f6fxp49hczagjjmtl2cvj9nztx8dpak3',
};

/**
 * One `MsgSend` of `coin` from `from` to `to`.
 * @param {string} from
 * @param {string} to
 * @param {{ denom: string, amount: string }} coin
 */
export function msgSend(from, to, coin) {
  return { '@type': '/cosmos.bank.v1beta1.MsgSend', from_address: from, to_address: to, amount: [coin] };
}

/**
 * A server whose every lookup answers a successful transaction under the hash asked for (the last
 * path segment), with what `describe(hash)` gives: its memo, its messages, its block height.
 * Not listening yet: the caller listens (port 0) and closes it.
 * @param {(hash: string) => { memo: string, messages: unknown[], height?: string }} describe
 * @returns {http.Server}
 */
export function chainServer(describe) {
  return http.createServer((req, res) => {
    const hash = (req.url ?? '').split('/').at(-1) ?? '';
    const { memo, messages, height = '1' } = describe(hash);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ tx: { body: { memo, messages } }, tx_response: { code: 0, height, txhash: hash } }),
    );
  });
}
