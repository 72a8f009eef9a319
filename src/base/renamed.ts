// Options named before their names said their unit (`timeout`, now `timeoutMs`; `limit`, now
// `maxBodyBytes`). Those names were never released; one passed by an app written against a
// pre-release is refused by name, not ignored: a time limit or size cap silently dropped would be
// the default without anyone knowing.

/** Throws a `TypeError` naming `current` when `options` has `old`, the name it had before. */
export function refuseOldName(options: object, old: string, current: string, owner: string): void {
  if ((options as Record<string, unknown>)[old] !== undefined) {
    throw new TypeError(`${owner} has no option "${old}": its name is "${current}" (the name says its unit)`);
  }
}
