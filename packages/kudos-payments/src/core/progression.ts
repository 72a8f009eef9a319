import type { KudosTxStatus } from 'kudos-core/chain';

/** How a newly notified status relates to the one an app already has for a transaction. */
export type KudosStatusChange = 'new' | 'same' | 'advance' | 'stale';

const NEXT: Record<KudosTxStatus, readonly KudosTxStatus[]> = {
  pending: ['success', 'fail', 'timeout'],
  timeout: ['success'],
  success: [],
  fail: [],
};

/**
 * Orders notifications of one transaction, which may arrive late or out of order (docs/kudos-service.md#notifications shows
 * no ordering): `pending` may become `success`, `fail` or `timeout`; `timeout` may later become
 * `success`. Anything else (e.g. `pending` after `success`) is `stale`: report it, do not apply it.
 *
 * @param previous - the status the app stored, or undefined for a transaction it has not seen
 * @param next - the status just notified
 */
export function classifyStatusChange(
  previous: KudosTxStatus | undefined,
  next: KudosTxStatus,
): KudosStatusChange {
  if (previous === undefined) return 'new';
  if (previous === next) return 'same';
  return NEXT[previous].includes(next) ? 'advance' : 'stale';
}
