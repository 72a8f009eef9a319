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
