import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PaymentsShop, paymentsFixture } from '../helpers/payments-shop.js';

// docs/payments.md's tables of what an order holds and what onPaid is given, read against a real
// order paid through the emulator's real sender: every field the docs list is there, and every field
// there is listed, each of the type the docs say.

const doc = readFileSync('docs/payments.md', 'utf8');

/** The rows of the table between `<!-- name -->` and `<!-- /name -->`: field, type. */
function table(name: string): Array<[string, string]> {
  const part = new RegExp(`<!-- ${name} -->([\\s\\S]*?)<!-- /${name} -->`).exec(doc)?.[1] ?? '';
  return [...part.matchAll(/^\| `(\w+)` \| (.+?) \| .+\|$/gm)].map((m) => [m[1] as string, m[2] as string]);
}

/** The type a table names for a value: what `typeof` (or null, an object) says of it. */
function kindOf(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

describe('docs/payments.md: what an order holds and what onPaid is given', () => {
  const fixture = paymentsFixture();

  it('lists every field of a paid order, and of what onPaid is given, with its type', async () => {
    const shop = await new PaymentsShop(fixture.kudos).start();
    fixture.shop = shop;
    const { url } = await shop.payments.createOrder({ amount: '2', user: 'alice', data: { item: 'mug' } });
    const params = new URL(url).searchParams;
    fixture.kudos.pay({
      from: 'alice',
      to: 'bobby',
      amount: '2',
      via: 'shop-agent',
      remarks: params.get('remarks') ?? '',
      state: params.get('state') ?? '',
    });
    await fixture.kudos.idle();
    const [paid] = shop.paid;
    if (!paid) throw new Error('onPaid was not told of the order');
    const orderFields = table('order-fields');
    const paymentFields = table('payment-fields');
    expect(orderFields.map(([name]) => name).sort()).toEqual(Object.keys(paid.order).sort());
    expect(paymentFields.map(([name]) => name).sort()).toEqual(Object.keys(paid).sort());
    for (const [name, type] of orderFields) {
      const value = (paid.order as unknown as Record<string, unknown>)[name];
      const kinds = type
        .replaceAll('`', '')
        .split(/ \\\| /)
        .map((t) => t.trim());
      const kind = kindOf(value);
      const named = kinds.some(
        (t) =>
          t === kind ||
          (kind === 'string' && t.startsWith("'")) ||
          (kind === 'object' && t.startsWith('Record')),
      );
      expect(named, `${name}: ${type} (is ${kind})`).toBe(true);
    }
    // The order as paid, after onPaid: fulfilled, with the payment's four fields.
    const after = await shop.payments.order(paid.order.reference);
    expect(after?.status).toBe('fulfilled');
    expect(Object.keys(after?.payment ?? {}).sort()).toEqual(['paidAt', 'payer', 'received', 'txHash']);
  });
});
