// A stand-in for the chain's REST lookup (`GET {restURL}/cosmos/tx/v1beta1/txs/{hash}`), for tests and
// benchmarks that need a chain answer without the emulator: one successful transaction with a memo and
// its bank messages, in the shape cosmosConfirmer reads. Plain JavaScript: the benchmark apps import it too.
import http from 'node:http';

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
