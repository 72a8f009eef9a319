// A transaction as the chain records it (docs/kudos-service.md#chain-lookup): its events (the fee
// step's and its message's, as the SDK 0.46 writes them), its logs, and the `GetTxResponse` a lookup
// by hash and each search entry answer.
import { DENOM } from 'kudos-core';
import { accountKey, MAIN_PREFIX, spellAddress } from 'kudos-core/chain';
import { walletAddress } from './ids.js';
import { chainMessages, type EmulatorTransaction, paymentOutputs, totalCoin } from './payments.js';

const GAS_WANTED = '200000';
const GAS_USED = '81234';

/** One event: its type and its attributes (plain text). */
export interface ChainEvent {
  type: string;
  attributes: Array<{ key: string; value: string; index: boolean }>;
}

/** The fee each emulated transaction pays for its gas (the chain's own price is not the emulator's business). */
const GAS_FEE = { denom: DENOM, amount: '2000000' };

/** The fee collector's module account, in the chain's main prefix (where the ante handler sends every fee). */
const FEE_COLLECTOR = spellAddress(accountKey('cosmos17xpfvakm2amg962yls6f84z3kell8c5lserqta'), MAIN_PREFIX);

function event(type: string, attributes: Record<string, string>): ChainEvent {
  return {
    type,
    attributes: Object.entries(attributes).map(([key, value]) => ({ key, value, index: true })),
  };
}

/**
 * The fee step's events, which a transaction keeps even when its messages fail: the payer's coins
 * spent and the fee collector's received, the transfer between them, the signer, the fee.
 */
function feeEvents(payer: string): ChainEvent[] {
  const fee = `${GAS_FEE.amount}${GAS_FEE.denom}`;
  return [
    event('coin_spent', { spender: payer, amount: fee }),
    event('coin_received', { receiver: FEE_COLLECTOR, amount: fee }),
    event('transfer', { recipient: FEE_COLLECTOR, sender: payer, amount: fee }),
    event('message', { sender: payer }),
    event('tx', { fee, fee_payer: payer }),
  ];
}

/**
 * The events of a payment's message, as the SDK (0.46) writes them: a `MsgSend` names recipient and
 * sender in the chain's main prefix; a `MsgMultiSend` names each output's address as the message
 * gives it, and its signer once (`message.sender`).
 */
function messageEvents(tx: EmulatorTransaction, payer: string): ChainEvent[] {
  const outputs = paymentOutputs(tx);
  const [only] = outputs;
  const amount = (coin: { amount: string; denom: string }) => `${coin.amount}${coin.denom}`;
  if (outputs.length === 1 && only) {
    const recipient = spellAddress(accountKey(only.address), MAIN_PREFIX);
    return [
      event('message', { action: '/cosmos.bank.v1beta1.MsgSend' }),
      event('coin_spent', { spender: payer, amount: amount(only.coin) }),
      event('coin_received', { receiver: recipient, amount: amount(only.coin) }),
      event('transfer', { recipient, sender: payer, amount: amount(only.coin) }),
      event('message', { sender: payer }),
      event('message', { module: 'bank' }),
    ];
  }
  const total = amount(totalCoin(outputs));
  return [
    event('message', { action: '/cosmos.bank.v1beta1.MsgMultiSend' }),
    event('coin_spent', { spender: payer, amount: total }),
    event('message', { sender: payer }),
    ...outputs.flatMap((output) => [
      event('coin_received', { receiver: output.address, amount: amount(output.coin) }),
      event('transfer', { recipient: output.address, amount: amount(output.coin) }),
    ]),
    event('message', { module: 'bank' }),
  ];
}

/** Every event of an included transaction: the fee step's, then its message's unless it failed. */
export function eventsOf(tx: EmulatorTransaction): ChainEvent[] {
  const payer = spellAddress(accountKey(walletAddress(tx.request.from)), MAIN_PREFIX);
  return [...feeEvents(payer), ...(tx.status === 'fail' ? [] : messageEvents(tx, payer))];
}

/** Events as `tx_response.events` carries them since the chain's v4 release: keys and values in base64 (logs keep them plain). */
function base64Events(events: ChainEvent[]): ChainEvent[] {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  return events.map((event) => ({
    type: event.type,
    attributes: event.attributes.map((a) => ({ key: b64(a.key), value: b64(a.value), index: a.index })),
  }));
}

/** The events of a transaction's `logs`: its message's, none when it failed (the fee step is not logged). */
export function loggedEvents(tx: EmulatorTransaction): ChainEvent[] {
  if (tx.status === 'fail') return [];
  return messageEvents(tx, spellAddress(accountKey(walletAddress(tx.request.from)), MAIN_PREFIX));
}

/** The logs of a successful transaction: the events of its one message, grouped by type as the SDK does. */
function logsOf(tx: EmulatorTransaction): unknown[] {
  if (tx.status === 'fail') return [];
  const grouped = new Map<string, Array<{ key: string; value: string }>>();
  for (const { type, attributes } of loggedEvents(tx)) {
    const list = grouped.get(type) ?? [];
    list.push(...attributes.map(({ key, value }) => ({ key, value })));
    grouped.set(type, list);
  }
  const events = [...grouped].map(([type, attributes]) => ({ type, attributes }));
  return [{ msg_index: 0, log: '', events }];
}

function timestamp(tx: EmulatorTransaction): string {
  return new Date(tx.completeTs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The Cosmos SDK `GetTxResponse` of an included transaction (docs/kudos-service.md#chain-lookup). */
export function getTxResponse(tx: EmulatorTransaction): unknown {
  const failed = tx.status === 'fail';
  const body = {
    messages: chainMessages(tx),
    memo: tx.request.remarks,
    timeout_height: '0',
    extension_options: [],
    non_critical_extension_options: [],
  };
  const authInfo = {
    signer_infos: [],
    fee: { amount: [GAS_FEE], gas_limit: GAS_WANTED, payer: '', granter: '' },
  };
  return {
    tx: { body, auth_info: authInfo, signatures: [] },
    tx_response: {
      height: String(tx.height ?? 0),
      txhash: tx.txHash,
      codespace: failed ? 'sdk' : '',
      code: failed ? 5 : 0,
      data: '',
      raw_log: failed ? 'insufficient funds' : '',
      logs: logsOf(tx),
      info: '',
      gas_wanted: GAS_WANTED,
      gas_used: GAS_USED,
      tx: { '@type': '/cosmos.tx.v1beta1.Tx', body, auth_info: authInfo, signatures: [] },
      timestamp: timestamp(tx),
      events: base64Events(eventsOf(tx)),
    },
  };
}
