import { describe, expect, it } from 'vitest';
import {
  readBodyText,
  sampleNotification,
  withAmount,
  withTx,
} from '../../../../test/helpers/notifications.js';
import { KudosNotificationError, parseKudosNotification } from '../../src/index.js';

const HASH = '30A19D04DEFFF62BC3BC268EE3E391C691231EBA87ADC032A2D99D56AC401959';

function refusal(body: unknown): KudosNotificationError {
  try {
    parseKudosNotification(body);
  } catch (error) {
    expect(error).toBeInstanceOf(KudosNotificationError);
    return error as KudosNotificationError;
  }
  throw new Error('expected a refusal');
}

describe('parseKudosNotification', () => {
  it('parses the sample of docs/kudos-service.md#notifications to the exact expected object', () => {
    expect(parseKudosNotification(sampleNotification())).toEqual({
      key: `${HASH}:success`,
      source: 'webhook',
      tx: {
        from: 'cosmos1wfu97hwfv5ukc0xjyutajq9e6w5xkcdprlmyhj',
        fromId: 'alice-example',
        to: ['cosmos1rcgfvhgvc6r066w9gzvkt74qx5uk9zj8yr6yf3'],
        toId: ['bob-example'],
        ts: 1611659587189,
        completeTs: 1611659583719,
        txHash: HASH,
        remarks: 'kudos pay via shop-agent',
        status: 'success',
        type: 'cosmosTransfer',
        amount: { amount: '1000000000', value: 1000000000n, denom: 'nanokudos' },
        amounts: [{ amount: '1000000000', value: 1000000000n, denom: 'nanokudos' }],
        outputs: [
          {
            address: 'cosmos1rcgfvhgvc6r066w9gzvkt74qx5uk9zj8yr6yf3',
            userId: 'bob-example',
            amount: { amount: '1000000000', value: 1000000000n, denom: 'nanokudos' },
            agent: false,
          },
        ],
      },
      metadata: {
        agentId: 'shop-agent',
        amounts: ['1'],
        remarks: 'kudos pay via shop-agent',
        agentFee: '0',
        toIds: ['bob-example'],
        raw: sampleNotification().metadata,
      },
      confirmed: false,
      paid: false,
      received: 0n,
      memo: null,
    });
  });

  it('keeps amounts beyond 2^53 exact, as string and bigint', () => {
    const big = '123456789012345678901234567890';
    const parsed = parseKudosNotification(withAmount(big));
    expect(parsed.tx.amount.amount).toBe(big);
    expect(parsed.tx.amount.value).toBe(123456789012345678901234567890n);
    expect(parsed.tx.amount.value.toString()).toBe(big);
  });

  it('normalizes a lower-case hash to upper case', () => {
    expect(parseKudosNotification(withTx({ txHash: HASH.toLowerCase() })).tx.txHash).toBe(HASH);
  });

  it('accepts completeTs earlier than ts, zero and fractional timestamps', () => {
    expect(parseKudosNotification(withTx({ ts: 10, completeTs: 5 })).tx.completeTs).toBe(5);
    expect(parseKudosNotification(withTx({ ts: 0, completeTs: 1.5 })).tx.ts).toBe(0);
  });

  it('accepts to, toId and amount as arrays, one entry per receiver (multi-receiver payments, observed)', () => {
    const parsed = parseKudosNotification(
      withTx({
        to: ['cosmos1a', 'cosmos1b'],
        toId: ['bob', 'carol'],
        amount: [
          { amount: '1000000000', denom: 'nanokudos' },
          { amount: '500000000', denom: 'nanokudos' },
        ],
      }),
    );
    expect(parsed.tx.to).toEqual(['cosmos1a', 'cosmos1b']);
    expect(parsed.tx.toId).toEqual(['bob', 'carol']);
    expect(parsed.tx.amounts?.map((a) => a.value)).toEqual([1_000_000_000n, 500_000_000n]);
    expect(parsed.tx.amount).toEqual({ amount: '1500000000', value: 1_500_000_000n, denom: 'nanokudos' });
  });

  it.each([
    [
      'amounts in two denoms',
      {
        to: ['a', 'b'],
        toId: ['x', 'y'],
        amount: [
          { amount: '1', denom: 'd' },
          { amount: '2', denom: 'e' },
        ],
      },
      'tx.amount',
    ],
    [
      'a bad amount in the list',
      {
        to: ['a', 'b'],
        toId: ['x', 'y'],
        amount: [
          { amount: '1', denom: 'd' },
          { amount: '01', denom: 'd' },
        ],
      },
      'tx.amount[1].amount',
    ],
    ['an empty amount list', { amount: [] }, 'tx.amount'],
  ])('refuses %s as invalid_amount, naming the field', (_name, tx, path) => {
    expect(refusal(withTx(tx))).toMatchObject({ code: 'invalid_amount', status: 422, path });
  });

  it('takes a list of amounts whose length is not one per output as the total, per-output amounts unknown', () => {
    const parsed = parseKudosNotification(
      withTx({
        to: ['a'],
        toId: ['x'],
        amount: [
          { amount: '1', denom: 'd' },
          { amount: '2', denom: 'd' },
        ],
      }),
    );
    expect(parsed.tx.amount.value).toBe(3n);
    expect(parsed.tx.amounts).toBeNull();
    expect(parsed.tx.outputs).toEqual([{ address: 'a', userId: 'x', amount: null, agent: false }]);
  });

  it('reads metadata values given as strings: blocking "true" is true, the raw value stays in raw (observed)', () => {
    const body = sampleNotification() as { metadata: Record<string, unknown> };
    body.metadata = {
      ...body.metadata,
      blocking: 'true',
      state: 'order-7',
      redirectUri: 'https://shop.example/',
    };
    const { metadata } = parseKudosNotification(body);
    expect(metadata).toMatchObject({
      blocking: true,
      state: 'order-7',
      redirectUri: 'https://shop.example/',
    });
    expect(metadata.raw.blocking).toBe('true');
    body.metadata = { blocking: '' };
    expect(parseKudosNotification(body).metadata.blocking).toBe(false);
  });

  it.each(['pending', 'success', 'fail', 'timeout'])(
    'accepts status %s and keys the event by hash and status',
    (status) => {
      expect(parseKudosNotification(withTx({ status })).key).toBe(`${HASH}:${status}`);
    },
  );

  it('accepts any non-empty type and missing remarks', () => {
    const parsed = parseKudosNotification(withTx({ type: 'ibcTransfer', remarks: undefined }));
    expect(parsed.tx.type).toBe('ibcTransfer');
    expect(parsed.tx.remarks).toBe('');
  });

  it('reads metadata keys at the top level or inside kudosPay, and merges agentID into agentId', () => {
    const body = sampleNotification();
    body.metadata = {
      agentID: 'top-agent',
      state: 'order-1',
      blocking: true,
      redirectUri: 'https://x',
      custom: { a: 1 },
    };
    const parsed = parseKudosNotification(body);
    expect(parsed.metadata).toEqual({
      agentId: 'top-agent',
      state: 'order-1',
      blocking: true,
      redirectUri: 'https://x',
      raw: {
        agentID: 'top-agent',
        state: 'order-1',
        blocking: true,
        redirectUri: 'https://x',
        custom: { a: 1 },
      },
    });
    body.metadata = { kudosPay: { agentID: 'inner' } };
    expect(parseKudosNotification(body).metadata.agentId).toBe('inner');
  });

  it('treats metadata as hints: wrong types are ignored, missing metadata is empty', () => {
    const body = sampleNotification();
    body.metadata = { kudosPay: { agentId: 42, toIds: 'bob', amounts: [1] } };
    expect(parseKudosNotification(body).metadata).toEqual({ raw: body.metadata });
    const { metadata: _gone, ...noMetadata } = sampleNotification();
    expect(parseKudosNotification(noMetadata).metadata).toEqual({ raw: {} });
  });

  it('drops __proto__, constructor and prototype keys at every depth and pollutes nothing', async () => {
    const text = JSON.stringify(sampleNotification())
      .replace(
        '"metadata":{',
        '"metadata":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},',
      )
      .replace('"kudosPay":{', '"kudosPay":{"__proto__":{"isAdmin":true},');
    const parsed = parseKudosNotification(await readBodyText(text));
    expect(Object.keys(parsed.metadata.raw)).toEqual(['kudosPay']);
    expect(Object.keys(parsed.metadata.raw.kudosPay as object)).not.toContain('__proto__');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(parsed.metadata.raw)).toBe(Object.prototype);
  });

  it.each([
    ['"1000"', '1000', true],
    ['0', '0', false],
    ['negative', '-1', false],
    ['leading zero', '0100', false],
    ['plus sign', '+100', false],
    ['spaces', ' 100', false],
    ['trailing space', '100 ', false],
    ['exponent', '1e9', false],
    ['hex', '0x10', false],
    ['decimal', '1.5', false],
    ['empty', '', false],
    ['non-ASCII digits', '١٢٣', false],
    ['too long (79 digits)', '1'.repeat(79), false],
    ['a number', 1000, false],
    ['null', null, false],
  ])('amount %s', (_name, amount, valid) => {
    if (valid) {
      expect(parseKudosNotification(withAmount(amount)).tx.amount.amount).toBe(amount);
      return;
    }
    const error = refusal(withAmount(amount));
    expect([error.code, error.status, error.path]).toEqual(['invalid_amount', 422, 'tx.amount.amount']);
  });

  it.each([
    ['63 characters', HASH.slice(1)],
    ['65 characters', `${HASH}A`],
    ['non-hex', `${HASH.slice(1)}G`],
    ['path traversal', `../${HASH.slice(3)}`],
    ['a number', 12345],
  ])('refuses a txHash of %s', (_name, txHash) => {
    expect(refusal(withTx({ txHash }))).toMatchObject({
      code: 'invalid_tx_hash',
      status: 422,
      path: 'tx.txHash',
    });
  });

  it.each([
    ['status not in the list', { status: 'done' }, 'invalid_status', 'tx.status'],
    ['status in upper case', { status: 'SUCCESS' }, 'invalid_status', 'tx.status'],
    ['missing status', { status: undefined }, 'missing_field', 'tx.status'],
    ['missing txHash', { txHash: undefined }, 'missing_field', 'tx.txHash'],
    ['missing amount', { amount: undefined }, 'missing_field', 'tx.amount'],
    ['amount as a number', { amount: 5 }, 'invalid_amount', 'tx.amount'],
    ['denom missing', { amount: { amount: '5' } }, 'invalid_amount', 'tx.amount.denom'],
    ['denom empty', { amount: { amount: '5', denom: '' } }, 'invalid_amount', 'tx.amount.denom'],
  ])('refuses %s with 422 and the path: what money needs', (_name, fields, code, path) => {
    expect(refusal(withTx(fields))).toMatchObject({ code, status: 422, path });
  });

  it.each([
    ['ts as a string', { ts: '1611659587189' }, { ts: null }],
    ['negative completeTs', { completeTs: -1 }, { completeTs: null }],
    ['empty type', { type: '' }, { type: '' }],
    ['fromId null (a wallet without an account)', { fromId: null }, { fromId: null }],
    ['fromId as a number', { fromId: 7 }, { fromId: null }],
    ['to as an empty array', { to: [] }, { to: [], outputs: [] }],
    ['toId with null and a number', { to: ['a', 'b'], toId: [null, 3] }, { toId: [null, null] }],
    ['missing from', { from: undefined }, { from: null }],
    ['remarks as a number', { remarks: 5 }, { remarks: '' }],
  ])('never refuses a real payment for its shape: %s', (_name, fields, expected) => {
    expect(parseKudosNotification(withTx(fields)).tx).toMatchObject(expected);
  });

  it('reads 1e400 (Infinity after JSON.parse) as no timestamp', async () => {
    const text = JSON.stringify(sampleNotification()).replace('1611659587189', '1e400');
    expect(parseKudosNotification(await readBodyText(text)).tx.ts).toBeNull();
  });

  it('refuses bodies that are not notification objects', () => {
    for (const body of [null, [], 'text', 42])
      expect(refusal(body)).toMatchObject({ code: 'not_an_object', status: 400 });
    expect(refusal({ metadata: {} })).toMatchObject({ code: 'missing_field', path: 'tx' });
    expect(refusal({ tx: [], metadata: {} })).toMatchObject({ code: 'missing_field', path: 'tx' });
  });

  it('reads metadata that is not an object as none', () => {
    expect(parseKudosNotification({ ...sampleNotification(), metadata: 'x' }).metadata).toEqual({ raw: {} });
  });

  it('refuses nesting deeper than 32 levels', () => {
    let deep: unknown = {};
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(refusal({ ...sampleNotification(), metadata: deep })).toMatchObject({
      code: 'too_deep',
      status: 422,
    });
  });

  it('uses the last value of a duplicated JSON key, as JSON.parse does (documented)', async () => {
    const text = JSON.stringify(sampleNotification()).replace(
      '"status":"success"',
      '"status":"pending","status":"success"',
    );
    expect(parseKudosNotification(await readBodyText(text)).tx.status).toBe('success');
  });

  it('reports empty, truncated and non-UTF-8 bodies as invalid_json', async () => {
    for (const body of ['', '   ', '{"tx":', Buffer.from([0xff, 0xfe])]) {
      const refused = readBodyText(body);
      await expect(refused).rejects.toBeInstanceOf(KudosNotificationError);
      await expect(refused).rejects.toMatchObject({ code: 'invalid_json', status: 400 });
    }
  });
});
