// Fragment: an end-to-end test of your app with Playwright; it goes in your test suite, which
// starts your app first (on :3000, pointed at the emulator below).
// An end-to-end test of your app with Playwright: the emulator signs "alice" in and accepts at
// once (autoLogin), so the test lands logged in without clicking through Kudos pages.
// Run the emulator for it with `npx kudos-emulator --auto-login alice`, or start it in the test:

import { startKudosEmulator } from 'kudos-emulator';
import { chromium } from 'playwright-core';

const kudos = await startKudosEmulator({ autoLogin: 'alice', port: 4000 });
// ... start your app with KUDOS_AUTH_URL=kudos.authURL and KUDOS_BASE_URL=kudos.baseURL on :3000 ...
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
const page = await browser.newPage();
await page.goto('http://localhost:3000/auth/kudos');
await page.waitForURL('http://localhost:3000/profile'); // logged in as alice
await browser.close();
await kudos.close();
