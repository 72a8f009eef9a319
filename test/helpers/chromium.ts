import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium, which .ci/run installs (playwright-core downloads no browser). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * How long a browser test waits for a page, a navigation or an element: sized for a busy 2-core
 * machine (a page that takes 10 s there is the machine's wait, not the code's failure).
 */
export const BROWSER_WAIT_MS = 30_000;

/** Quiet flags: no sandbox in CI containers, no GPU, and nothing that reaches out of the machine. */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Launches headless Chromium; a missing binary fails the test with what to do. */
export async function launchChromium(): Promise<Browser> {
  expect(existsSync(CHROMIUM), `${CHROMIUM} is missing: run .ci/run, or apt-get install chromium`).toBe(true);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}
