#!/usr/bin/env node
// `npm start`: runs the example app, against the embedded Kudos emulator unless KUDOS_AUTH_URL and
// KUDOS_BASE_URL point at a real service.
import './quiet-sqlite-warning.js'; // first: before anything loads node:sqlite
import { startExample } from './start.js';

try {
  const example = await startExample(process.env, { log: (line) => console.log(line) });
  console.log(`\nKudos example app: ${example.url}`);
  if (example.emulator) {
    console.log(`Kudos emulator:    ${example.authURL}`);
    console.log('Demo users:        alice / wonderland, bobby / builder');
  }
  if (!example.config.sessionSecretGiven)
    console.log('(SESSION_SECRET not set: sessions end when the app restarts)');
  const stop = () => example.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  console.error(`example: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
