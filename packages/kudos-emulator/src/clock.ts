/**
 * The emulator's clock: real time plus an offset that tests move forward, so that one hour of
 * token lifetime can pass without waiting.
 */
/**
 * Farthest the clock may be moved in all: 100 years. Beyond a few hundred thousand years a date is
 * no longer a valid `Date` (every page and token would fail); far short of that, it is a test's typo.
 */
export const MAX_CLOCK_OFFSET_MS = 100 * 365 * 24 * 3600 * 1000;

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
    if (!Number.isFinite(offsetMs) || offsetMs < 0 || offsetMs > MAX_CLOCK_OFFSET_MS)
      throw new RangeError(`clock offset must be 0 to ${MAX_CLOCK_OFFSET_MS} milliseconds`);
    this.offsetMs = offsetMs;
  }

  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0 || this.offsetMs + ms > MAX_CLOCK_OFFSET_MS) {
      throw new RangeError(
        `the clock moves forward by 0 to ${MAX_CLOCK_OFFSET_MS - this.offsetMs} more milliseconds (100 years in all)`,
      );
    }
    this.offsetMs += ms;
  }
}
