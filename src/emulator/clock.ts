/**
 * The emulator's clock: real time plus an offset that tests move forward, so that one hour of
 * token lifetime can pass without waiting.
 */
export class EmulatorClock {
  private offsetMs = 0;

  /** Current emulator time in epoch milliseconds. */
  now(): number {
    return Date.now() + this.offsetMs;
  }

  /** Current emulator time in epoch seconds (JWT `iat`/`exp`). */
  nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** How far the clock was moved forward, in milliseconds (saved in a state file). */
  get offset(): number {
    return this.offsetMs;
  }

  /** Sets the offset read back from a state file. */
  restore(offsetMs: number): void {
    if (!Number.isFinite(offsetMs) || offsetMs < 0)
      throw new RangeError('clock offset must be a non-negative number');
    this.offsetMs = offsetMs;
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0)
      throw new RangeError('advance() takes a non-negative number of milliseconds');
    this.offsetMs += ms;
  }
}
