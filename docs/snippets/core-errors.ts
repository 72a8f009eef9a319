// One error hierarchy for every Kudos package: catch KudosError, switch on its code (a row of
// KUDOS_ERROR_CODES, with its class and status).
import { isCodeOf, KUDOS_ERROR_CODES, KudosError } from 'kudos-core';

function explain(error: unknown): string {
  if (!(error instanceof KudosError)) return 'not a Kudos error';
  const row = KUDOS_ERROR_CODES.find((r) => r.code === error.code && r.error === error.name);
  return `${error.name} ${error.code} (${error.status}): ${row?.meaning ?? error.message}`;
}

const error = new KudosError('store_unavailable', { message: 'the order store did not answer' });
console.log(explain(error));
console.log(isCodeOf('KudosError', error.code), explain(new Error('other')));
