// Whether a transaction is the shop's business at all. Anyone may hand the return page (or
// reconcileChain()) a hash; a transaction that pays none of the shop's wallets and names neither its user
// nor its agent among the wallets is not looked at further: no claim, no kept record, no write.
import { isRecord } from 'kudos-core';
import { accountKey } from 'kudos-core/chain';

/** A field that is a string or a list of them (a record of several outputs), as a list. */
function listOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Whether a service record concerns the shop: it pays one of `wallets` (accounts, either spelling),
 * or names one of `ids` (the shop's user, its agent) among its wallets (`toId`): money that reached
 * the shop's user but another wallet is still the shop's to see (`not_to_wallet`).
 */
export function concernsShop(wallets: ReadonlySet<string>, ids: readonly string[]) {
  return (record: unknown): boolean => {
    if (!isRecord(record)) return false;
    return (
      listOf(record.to).some((address) => wallets.has(accountKey(address))) ||
      listOf(record.toId).some((id) => ids.includes(id))
    );
  };
}
