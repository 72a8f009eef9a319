/**
 * The help of `kudos-emulator`'s subcommands (each its usage and an example), the version, and the
 * short form of a usage error: two lines naming the mistake and the help to read, never the whole
 * usage again.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Options every subcommand takes. */
const COMMON = `  --url URL             the running emulator (default: KUDOS_EMULATOR_URL, else http://127.0.0.1:4000)
  --admin-token TOKEN   when the emulator was started with one
  --json                print JSON instead of a line`;

/**
 * The receiver of the README's payment snippet, with its secret (a receiver answers 401 to a
 * notification without it): in double quotes, the shell puts in the variable the app reads.
 */
const WEBHOOK_EXAMPLE = 'http://localhost:3001/webhooks/kudos?token=$KUDOS_WEBHOOK_SECRET';

/** Each subcommand: what it does, its usage, an example. */
export const SUBCOMMAND_HELP: Readonly<Record<string, { what: string; usage: string; example: string }>> = {
  'trigger payment': {
    what: 'make a payment as the widget would (its notification goes out as usual)',
    usage: `kudos-emulator trigger payment --to ID --amount N [--from ID] [--via AGENT] [--fee N]
                               [--status success|fail|timeout] [--remarks TEXT] [--state TEXT]
                               [--no-metadata-posted]   (the payer's browser never posts the
                               metadata: the money moves, no notification, no redirect)`,
    example: 'kudos-emulator trigger payment --to bobby --amount 2 --via shop-agent',
  },
  deliveries: {
    what: 'list every webhook delivery: its ID (what resend takes), time, agent, URL, hash, status, answer',
    usage: 'kudos-emulator deliveries',
    example: 'kudos-emulator deliveries',
  },
  resend: {
    what: "send a delivery's notification again, as a redelivery",
    usage: 'kudos-emulator resend DELIVERY_ID',
    example: 'kudos-emulator resend 1',
  },
  'clock advance': {
    what: 'move the emulator clock forward (tokens, codes and avatar URLs expire by it)',
    usage: 'kudos-emulator clock advance DURATION      (90s, 61m, 1h)',
    example: 'kudos-emulator clock advance 61m',
  },
  'users add': {
    what: 'add a user; one that exists is refused unless --update (which replaces its password)',
    usage: 'kudos-emulator users add ID:PASSWORD [--display-name NAME] [--update]',
    example: 'kudos-emulator users add carol:secret123 --display-name Carol',
  },
  'clients add': {
    what: 'add an OAuth client; one that exists is refused unless --update (which replaces its secret and URI)',
    usage: 'kudos-emulator clients add ID:SECRET:REDIRECT_URI [--update]',
    example: 'kudos-emulator clients add my-app:my-secret:http://localhost:3000/auth/kudos/callback',
  },
  'agents add': {
    what: 'add an agent; one that exists is refused unless --update (which replaces what is given)',
    usage: 'kudos-emulator agents add ID [--webhook URL] [--redirect URI ...] [--update]',
    example: `kudos-emulator agents add shop-agent --webhook "${WEBHOOK_EXAMPLE}"`,
  },
  'agents add-redirect': {
    what: "add URIs to an existing agent's payment redirect whitelist (the others stay)",
    usage: 'kudos-emulator agents add-redirect ID URI [URI ...]',
    example: 'kudos-emulator agents add-redirect shop-agent http://localhost:3000/tip/done',
  },
  'agents set-webhook': {
    what: "point an existing agent's webhook at URL (none: remove it)",
    usage: 'kudos-emulator agents set-webhook ID URL|none',
    example: `kudos-emulator agents set-webhook shop-agent "${WEBHOOK_EXAMPLE}"`,
  },
  listen: {
    what: "the agent's notifications go to URL and each delivery is printed, until Ctrl-C puts its own webhook back (forwarding lapses if listen is killed)",
    usage: 'kudos-emulator listen --forward-to URL [--agent ID] [--print-body]',
    example: `kudos-emulator listen --agent shop-agent --forward-to "${WEBHOOK_EXAMPLE}"`,
  },
};

/** The words that name a subcommand at the start of `argv` (one or two), or undefined. */
export function subcommandOf(argv: readonly string[]): string | undefined {
  const two = `${argv[0] ?? ''} ${argv[1] ?? ''}`;
  if (two in SUBCOMMAND_HELP) return two;
  if ((argv[0] ?? '') in SUBCOMMAND_HELP) return argv[0];
  return undefined;
}

/** The help of one subcommand: what it does, its usage, its options, an example. */
export function subcommandHelp(name: string): string {
  const help = SUBCOMMAND_HELP[name];
  if (!help) return '';
  return `kudos-emulator ${name}: ${help.what}

Usage: ${help.usage}
${COMMON}

Example:
  ${help.example}`;
}

/**
 * The help of a word that starts several subcommands (`agents`, `trigger`): each of them, what it
 * does and its usage. Empty when `word` starts none of two words.
 */
export function groupHelp(word: string): string {
  const names = Object.keys(SUBCOMMAND_HELP).filter((name) => name.startsWith(`${word} `));
  if (names.length === 0) return '';
  const lines = names.flatMap((name) => {
    const help = SUBCOMMAND_HELP[name] as { what: string; usage: string };
    return [`  ${name}: ${help.what}`, `    ${help.usage}`, ''];
  });
  return `kudos-emulator ${word}: ${names.length === 1 ? 'its subcommand' : 'its subcommands'}

${lines.join('\n')}Run 'kudos-emulator ${names[0]} --help' for one subcommand's options and an example.`;
}

/** A usage error: what is wrong, and which help to read (exit code 2). */
export function usageError(message: string, command: string | undefined): string {
  const help = command ? `kudos-emulator ${command} --help` : 'kudos-emulator --help';
  return `kudos-emulator: ${message}\nRun '${help}' for the usage.`;
}

/** A parseArgs error in a line: `unknown option '--x'` rather than node's advice about `--`. */
export function shortParseError(error: Error & { code?: string }): string {
  const unknown = /Unknown option '([^']+)'/.exec(error.message);
  if (unknown) return `unknown option '${unknown[1]}'`;
  return error.message.split('. ')[0] ?? error.message;
}

/** The version in the package.json of kudos-emulator at or above `from`, if there is one. */
function versionAbove(from: string): string | undefined {
  let dir = dirname(from);
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'kudos-emulator' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not here: one folder up
    }
    dir = dirname(dir);
  }
  return undefined;
}

/** The package.json of the kudos-emulator installed where the program runs, if any. */
function installedManifest(): string | undefined {
  try {
    return createRequire(join(process.cwd(), 'index.js')).resolve('kudos-emulator/package.json');
  } catch {
    return undefined;
  }
}

/**
 * The package's version: from the package.json above the running bin, or (the module loaded by
 * another program, such as a test runner) of the kudos-emulator installed where it runs.
 */
export function packageVersion(): string {
  const installed = installedManifest();
  return (
    versionAbove(realpathSync(process.argv[1] ?? '.')) ??
    (installed === undefined ? undefined : versionAbove(installed)) ??
    'unknown'
  );
}
