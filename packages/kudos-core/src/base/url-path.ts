/**
 * `url` without its trailing slashes. A loop, not `/\/+$/`: that pattern backtracks quadratically
 * on a string of many slashes that do not end it.
 */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}

/** Where the last non-empty segment of a path starts and ends (a loop: linear on a path of slashes). */
export function lastSegmentBounds(path: string): { start: number; end: number } {
  let end = path.length;
  while (end > 0 && path[end - 1] === '/') end--;
  return { start: path.lastIndexOf('/', end - 1) + 1, end };
}

/**
 * A request target split into its path and its query (`?` included, or empty), without `new URL()`:
 * a target such as `//x` or `//` reads as a host there and throws. The path is kept exactly as sent.
 */
export function splitTarget(target: string): { path: string; search: string } {
  const mark = target.indexOf('?');
  return mark === -1
    ? { path: target, search: '' }
    : { path: target.slice(0, mark), search: target.slice(mark) };
}

/**
 * Whether an absolute URL carries credentials (`https://user:password@host`): an address of the
 * service that does would put the password into fetch's own error (which quotes the URL), so the
 * options refuse it.
 */
export function hasCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const { username, password } = new URL(url);
  return username !== '' || password !== '';
}
