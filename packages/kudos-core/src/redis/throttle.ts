/**
 * `action`, run at most once every `ms` milliseconds: the calls in between do nothing. The adapters
 * use it so that a burst of failed commands asks a cluster client to read its slot map once.
 */
export function atMostEvery(ms: number, action: () => void): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < ms) return;
    last = now;
    action();
  };
}
