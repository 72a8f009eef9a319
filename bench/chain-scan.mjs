// 14. The way back on the chain: reconcileChain() over a window of 10,000 transfers to the shop on a
// node that pages as the chain's own software does (SDK 0.46: page/limit, a top-level total). The first
// run reads the window whole; then a run with nothing new and one with 10 new, each beside a run that
// reads the same window whole again (an explicit `since`: what every run cost before runs remembered
// how far they had read), measured in the same run. Requests are counted by the node itself.
import { performance } from 'node:perf_hooks';
import { cosmosConfirmer, kudosReceiver } from 'kudos-payments';
import { WALLETS } from '../test/helpers/chain-answer.mjs';
import { startTestChainNode, testHash } from '../test/helpers/chain-node.mjs';

/** `count` transfers of 1 nanokudos to the shop, a second apart, ending now. */
function transfers(count, firstHeight) {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    hash: testHash(),
    height: firstHeight + i,
    time: now - (count - i) * 1000,
    from: WALLETS.payerMain,
    to: WALLETS.shopMain,
    amount: '1',
    memo: '',
  }));
}

/** One call of `run` with the node's requests and the milliseconds it took. */
async function measured(node, run) {
  node.reset();
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  return {
    requests: node.searches + node.lookups,
    ms,
    processed: result.processed,
    incomplete: result.incomplete,
  };
}

export async function benchChainScan({ window }) {
  const node = await startTestChainNode(transfers(window, 1), { paging: 'sdk' });
  try {
    const hook = kudosReceiver({
      secret: false,
      confirm: cosmosConfirmer({ restURL: node.url, wallet: WALLETS.shop }),
      onNotification: () => undefined,
    });
    const args = { wallet: WALLETS.shop, restURL: node.url };
    const whole = () => hook.reconcileChain({ ...args, since: 0 });
    const first = await measured(node, () => hook.reconcileChain(args));
    const nothingNew = await measured(node, () => hook.reconcileChain(args));
    const wholeAgain = await measured(node, whole);
    node.transfers.push(...transfers(10, window + 1));
    const tenNew = await measured(node, () => hook.reconcileChain(args));
    const wholeWithTen = await measured(node, whole);
    return {
      window,
      pages: Math.ceil(window / 100),
      first,
      nothingNew,
      wholeAgain,
      tenNew,
      wholeWithTen,
    };
  } finally {
    await node.close();
  }
}
