/**
 * One emulator per state file: `FILE.lock` names the process that holds it. Taken atomically: the
 * lock appears whole (written to a file of its own, then hard-linked into place, which fails if a
 * lock is there), so no one ever reads an empty lock; a lock is removed only by its holder, or, when
 * its holder is dead, by the one process that holds `FILE.lock.takeover` and found the same dead
 * holder there again. A lock that names this very process but was not taken by it (a container's
 * emulator restarted as PID 1, the PID in the leftover lock) is a dead holder's.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Locks this process holds (a second emulator of this process on the same file is refused). */
const held = new Set<string>();

/** Most tries to take a lock while others take over a stale one; a few milliseconds apart. */
const TRIES = 200;

/** Writes `FILE`'s content whole, or fails with EEXIST when it exists: link(2) is atomic. */
function createWhole(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600 });
  try {
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

/** The process a lock names; undefined when there is no lock (or it names none). */
function holderOf(path: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
  const pid = Number(text);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a lock's holder is gone: dead, or this process without having taken the lock itself. */
function stale(lock: string, pid: number | undefined): boolean {
  if (pid === undefined) return true;
  if (pid === process.pid) return !held.has(lock);
  return !alive(pid);
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** What is wrong when a lock cannot be taken: held by a live process, or not lockable at all. */
export class StateLockError extends Error {
  constructor(
    message: string,
    readonly holder?: number,
  ) {
    super(message);
  }
}

/** Takes `lock` for this process; answers its release. Throws {@link StateLockError}. */
export function takeLock(lock: string): () => void {
  if (held.has(lock)) throw new StateLockError(`in use (process ${process.pid})`, process.pid);
  for (let attempt = 0; attempt < TRIES; attempt++) {
    try {
      if (createWhole(lock, String(process.pid))) {
        held.add(lock);
        return () => {
          held.delete(lock);
          if (holderOf(lock) === process.pid) rmSync(lock, { force: true });
        };
      }
    } catch (error) {
      throw new StateLockError(`cannot be locked (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const holder = holderOf(lock);
    if (!stale(lock, holder)) throw new StateLockError(`in use (process ${holder})`, holder);
    // Stale: only the holder of the takeover lock removes it, after finding the same holder again.
    const takeover = `${lock}.takeover`;
    if (createWhole(takeover, String(process.pid))) {
      try {
        const again = holderOf(lock);
        if (again === holder && stale(lock, again)) rmSync(lock, { force: true });
      } finally {
        rmSync(takeover, { force: true });
      }
    } else {
      // A taker that died in those few lines leaves its takeover lock: clear it, then try again.
      const taker = holderOf(takeover);
      if (taker !== undefined && taker !== process.pid && !alive(taker)) rmSync(takeover, { force: true });
      pause(5);
    }
  }
  throw new StateLockError('cannot be locked (others keep taking it)');
}
