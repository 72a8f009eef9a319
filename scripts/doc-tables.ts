// The tables the READMEs show, made from their one source (used by scripts/docs.mjs and the tests).
import { KUDOS_ERROR_CODES } from '../packages/kudos-core/src/base/error-codes.js';

export { routeTableMarkdown } from '../packages/kudos-emulator/src/server/route-table.js';

/** KUDOS_ERROR_CODES as Markdown. */
export function errorTableMarkdown(): string {
  const rows = KUDOS_ERROR_CODES.map(
    (row) => `| \`${row.code}\` | ${row.status} | ${row.error} | ${row.meaning.replaceAll('|', '\\|')} |`,
  );
  return ['| code | status | error | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
