#!/usr/bin/env node
/**
 * `kudos-emulator`: starts the local Kudos emulator (no subcommand), or talks to a running one
 * (`trigger payment`, `deliveries`, `resend`, `clock advance`, `users add`, `clients add`,
 * `agents add`, `agents set-webhook`, `listen --forward-to`).
 */
import { CommandError, runSubcommand } from './cli-admin.js';
import { runListen } from './cli-listen.js';
import { startCommand, USAGE } from './cli-start.js';

const SUBCOMMANDS = new Set([
  'trigger',
  'deliveries',
  'resend',
  'clock',
  'users',
  'clients',
  'agents',
  'listen',
]);

async function main(argv: string[]): Promise<void> {
  if (!SUBCOMMANDS.has(argv[0] ?? '')) return startCommand(argv);
  try {
    if (argv[0] === 'listen') {
      process.exitCode = await runListen(argv.slice(1));
      return;
    }
    const { out, code } = await runSubcommand(argv);
    console.log(out);
    process.exitCode = code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (
      error instanceof CommandError ||
      (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      console.error(`kudos-emulator: ${message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error(`kudos-emulator: ${message}`);
      process.exitCode = 1;
    }
  }
}

void main(process.argv.slice(2));
