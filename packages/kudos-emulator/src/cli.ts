#!/usr/bin/env node
/**
 * `kudos-emulator`: starts the local Kudos emulator (no subcommand), or talks to a running one
 * (`trigger payment`, `deliveries`, `resend`, `clock advance`, `users add`, `clients add`,
 * `agents add`, `agents add-redirect`, `agents set-webhook`, `listen --forward-to`). `--help` (or
 * `-h`, or `help [subcommand]`) prints help and exits 0; `--version` the version.
 */
import { CommandError, runSubcommand } from './cli/admin.js';
import {
  groupHelp,
  packageVersion,
  SUBCOMMAND_HELP,
  shortParseError,
  subcommandHelp,
  subcommandOf,
  usageError,
} from './cli/help.js';
import { runListen } from './cli/listen.js';
import { startCommand, USAGE } from './cli/start.js';

/** First words that name a subcommand (the start command takes only options): from the help table. */
const SUBCOMMAND_WORDS = new Set(Object.keys(SUBCOMMAND_HELP).map((name) => name.split(' ')[0]));

const wantsHelp = (argv: readonly string[]) => argv.includes('--help') || argv.includes('-h');

/** `help [subcommand]`: that subcommand's help, or the usage; an unknown one is a usage error. */
function help(words: string[]): number {
  if (words.length === 0) {
    console.log(USAGE);
    return 0;
  }
  const name = subcommandOf(words);
  const group = name ? '' : groupHelp(words[0] ?? '');
  if (group) {
    console.log(group);
    return 0;
  }
  if (!name) {
    console.error(usageError(`no subcommand '${words.join(' ')}'`, undefined));
    return 2;
  }
  console.log(subcommandHelp(name));
  return 0;
}

async function main(argv: string[]): Promise<void> {
  const first = argv[0] ?? '';
  if (first === '--version' || first === '-v' || first === 'version') {
    console.log(packageVersion());
    return;
  }
  if (first === 'help') {
    process.exitCode = help(argv.slice(1));
    return;
  }
  if (!SUBCOMMAND_WORDS.has(first)) return startCommand(argv);
  const name = subcommandOf(argv);
  if (!name) {
    // `agents --help`, or `agents` alone: the subcommands it starts.
    const group = groupHelp(first);
    if (group && (wantsHelp(argv) || argv.length === 1)) {
      if (wantsHelp(argv)) console.log(group);
      else console.error(group); // a subcommand is missing: exit 2
      process.exitCode = wantsHelp(argv) ? 0 : 2;
      return;
    }
    console.error(usageError(`unknown subcommand '${argv.slice(0, 2).join(' ')}'`, undefined));
    process.exitCode = 2;
    return;
  }
  if (wantsHelp(argv)) {
    console.log(subcommandHelp(name));
    return;
  }
  try {
    if (name === 'listen') {
      process.exitCode = await runListen(argv.slice(1));
      return;
    }
    const { out, code } = await runSubcommand(argv);
    console.log(out);
    process.exitCode = code;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const parse = (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    if (error instanceof CommandError || parse) {
      console.error(usageError(parse ? shortParseError(error as Error) : message, name));
      process.exitCode = 2;
    } else {
      console.error(`kudos-emulator: ${message}`);
      process.exitCode = 1;
    }
  }
}

void main(process.argv.slice(2));
