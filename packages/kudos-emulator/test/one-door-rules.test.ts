import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/helpers/cli.js';

// One set of rules for every change to the emulator's state, whichever door it comes by: the start
// options, the handle of a running emulator, the admin API, and the command line. One table of
// changes goes through all four; each is accepted by all, or refused by all with the same words.

/** How each door answers a change: accepted, or the words of its refusal. */
type Answer = { ok: true } | { ok: false; message: string };

interface Change {
  name: string;
  /** What is refused, in the words every door uses (undefined: accepted). */
  refusal?: string;
  options: () => Promise<unknown>;
  handle: (kudos: KudosEmulator) => void;
  admin: { path: string; body: Record<string, unknown> };
  cli: string[];
}

let n = 0;
/** A user ID no row has used (each door adds its own). */
const fresh = () => `user-${process.pid % 1000}-${n++}`;

const CHANGES = (): Change[] => {
  const ok = fresh();
  const okAgent = `agent-${n++}`;
  const okClient = `client-${n++}`;
  return [
    {
      name: 'a user with a valid ID and a password',
      options: () => startKudosEmulator({ users: [{ id: ok, password: 'pw' }] }),
      handle: (k) => k.addUser({ id: `${ok}h`, password: 'pw' }),
      admin: { path: '/_emulator/users', body: { id: `${ok}a`, password: 'pw' } },
      cli: ['users', 'add', `${ok}c:pw`],
    },
    {
      name: 'a user ID shorter than the service allows',
      refusal: 'id "abc" must be 5 to 20 characters',
      options: () => startKudosEmulator({ users: [{ id: 'abc', password: 'pw' }] }),
      handle: (k) => k.addUser({ id: 'abc', password: 'pw' }),
      admin: { path: '/_emulator/users', body: { id: 'abc', password: 'pw' } },
      cli: ['users', 'add', 'abc:pw'],
    },
    {
      name: 'a user ID with a capital letter',
      refusal: 'id "Alice-A" must be 5 to 20 characters',
      options: () => startKudosEmulator({ users: [{ id: 'Alice-A', password: 'pw' }] }),
      handle: (k) => k.addUser({ id: 'Alice-A', password: 'pw' }),
      admin: { path: '/_emulator/users', body: { id: 'Alice-A', password: 'pw' } },
      cli: ['users', 'add', 'Alice-A:pw'],
    },
    {
      name: 'an agent with an http webhook',
      options: () => startKudosEmulator({ agents: [{ id: okAgent, webhookURL: 'http://127.0.0.1:9/hook' }] }),
      handle: (k) => k.setWebhook(`${okAgent}h`, 'http://127.0.0.1:9/hook'),
      admin: {
        path: '/_emulator/agents',
        body: { id: `${okAgent}a`, webhookURL: 'http://127.0.0.1:9/hook' },
      },
      cli: ['agents', 'add', `${okAgent}c`, '--webhook', 'http://127.0.0.1:9/hook'],
    },
    {
      name: 'an agent whose webhook is not http(s)',
      refusal: 'must be an absolute http(s) URL',
      options: () =>
        startKudosEmulator({ agents: [{ id: 'ftp-agent', webhookURL: 'ftp://127.0.0.1/hook' }] }),
      handle: (k) => k.setWebhook('ftp-agent', 'ftp://127.0.0.1/hook'),
      admin: { path: '/_emulator/agents', body: { id: 'ftp-agent', webhookURL: 'ftp://127.0.0.1/hook' } },
      cli: ['agents', 'add', 'ftp-agent', '--webhook', 'ftp://127.0.0.1/hook'],
    },
    {
      name: 'a client with an https redirect URI',
      options: () =>
        startKudosEmulator({
          clients: [{ clientID: okClient, clientSecret: 's', redirectURIs: ['https://shop.example/cb'] }],
        }),
      handle: (k) =>
        k.addClient({
          clientID: `${okClient}h`,
          clientSecret: 's',
          redirectURIs: ['https://shop.example/cb'],
        }),
      admin: {
        path: '/_emulator/clients',
        body: { clientID: `${okClient}a`, clientSecret: 's', redirectURI: 'https://shop.example/cb' },
      },
      cli: ['clients', 'add', `${okClient}c:s:https://shop.example/cb`],
    },
    {
      name: 'a client whose redirect URI is javascript:',
      refusal: 'absolute http(s) URL',
      options: () =>
        startKudosEmulator({
          clients: [{ clientID: 'js-client', clientSecret: 's', redirectURIs: ['javascript:alert(1)'] }],
        }),
      handle: (k) =>
        k.addClient({ clientID: 'js-client', clientSecret: 's', redirectURIs: ['javascript:alert(1)'] }),
      admin: {
        path: '/_emulator/clients',
        body: { clientID: 'js-client', clientSecret: 's', redirectURI: 'javascript:alert(1)' },
      },
      cli: ['clients', 'add', 'js-client:s:javascript:alert(1)'],
    },
  ];
};

describe('one set of rules for every door into the emulator’s state', () => {
  let kudos: KudosEmulator;
  const answers = new Map<string, Record<string, Answer>>();
  const table = CHANGES();

  beforeAll(async () => {
    kudos = await startKudosEmulator();
    for (const change of table) {
      const byDoor: Record<string, Answer> = {};
      byDoor.options = await change.options().then(
        async (started) => {
          await (started as KudosEmulator).close();
          return { ok: true } as const;
        },
        (error: Error) => ({ ok: false, message: error.message }),
      );
      try {
        change.handle(kudos);
        byDoor.handle = { ok: true };
      } catch (error) {
        byDoor.handle = { ok: false, message: (error as Error).message };
      }
      const res = await fetch(`${kudos.authURL}${change.admin.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(change.admin.body),
      });
      const body = (await res.json()) as { error?: string };
      byDoor.admin = res.ok ? { ok: true } : { ok: false, message: String(body.error) };
      const cli = await runCli([...change.cli, '--url', kudos.authURL]);
      byDoor.cli = cli.code === 0 ? { ok: true } : { ok: false, message: cli.stderr };
      answers.set(change.name, byDoor);
    }
  }, 120_000);
  afterAll(() => kudos?.close());

  it.each(table.map((c) => [c.name, c] as const))('%s: the same answer at every door', (_, change) => {
    const byDoor = answers.get(change.name) ?? {};
    expect(Object.keys(byDoor)).toEqual(['options', 'handle', 'admin', 'cli']);
    for (const [door, answer] of Object.entries(byDoor)) {
      if (change.refusal === undefined) expect(answer, door).toEqual({ ok: true });
      else {
        expect(answer.ok, door).toBe(false);
        expect((answer as { message: string }).message, door).toContain(change.refusal);
        expect((answer as { message: string }).message, door).not.toMatch(/\n\s+at /); // no stack trace
      }
    }
  });
});
