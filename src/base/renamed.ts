// Options renamed so that their names say their unit (`timeout` became `timeoutMs`, `limit`
// `maxBodyBytes`): the old name is still read for one minor version, with a deprecation warning
// once per process and option. CHANGELOG.md lists every rename.

/** The options whose old name was seen (`owner.old`), so each is warned of once. */
const warned = new Set<string>();

/** The code of the deprecation warning (`process.on('warning')` and `--no-deprecation` see it). */
export const RENAMED_OPTION_WARNING = 'KUDOS_DEP_RENAMED_OPTION';

/**
 * The value of option `current` of `owner`'s options, or of its old name `old` (warned once), with
 * the name it came by (for a message about it). Both given with different values is a `TypeError`:
 * which one is meant cannot be known.
 */
export function renamedOption(
  options: object,
  old: string,
  current: string,
  owner: string,
): { value: unknown; name: string } {
  const record = options as Record<string, unknown>;
  const was = record[old];
  const is = record[current];
  if (was === undefined) return { value: is, name: current };
  if (is !== undefined && is !== was) {
    throw new TypeError(
      `${owner} options "${old}" and "${current}" differ: "${old}" is the old name of "${current}"; pass "${current}" only`,
    );
  }
  const key = `${owner}.${old}`;
  if (!warned.has(key)) {
    warned.add(key);
    process.emitWarning(
      `${owner} option "${old}" is renamed "${current}" (its name now says its unit); "${old}" is still read until the next minor version`,
      { type: 'DeprecationWarning', code: RENAMED_OPTION_WARNING },
    );
  }
  return { value: was, name: old };
}
