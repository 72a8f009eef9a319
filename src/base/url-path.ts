/**
 * `url` without its trailing slashes. A loop, not `/\/+$/`: that pattern backtracks quadratically
 * on a string of many slashes that do not end it.
 */
export function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end--;
  return url.slice(0, end);
}
