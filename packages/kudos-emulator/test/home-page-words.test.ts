import { type KudosEmulator, startKudosEmulator } from 'kudos-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The home page's words for a newcomer: the demo client lists `:3000` callbacks, and any loopback port
// is accepted too; the page says so, next to the list.
describe('the emulator home page', () => {
  let kudos: KudosEmulator;
  beforeAll(async () => {
    kudos = await startKudosEmulator();
  });
  afterAll(() => kudos.close());

  it('states the loopback rule of redirect URIs beside the clients', async () => {
    const html = await (await fetch(`${kudos.authURL}/`)).text();
    expect(html).toContain('<p id="redirect-rule">');
    expect(html).toContain('any port is accepted (RFC 8252 section 7.3)');
    // And the rule holds: the demo client's :3000 callback on another loopback port gets a code.
    const query = new URLSearchParams({
      client_id: 'kudos-demo-client',
      redirect_uri: 'http://localhost:5173/auth/kudos/callback',
      scope: 'profile',
    });
    const page = await fetch(`${kudos.authURL}/in/oauth/?${query}`, { redirect: 'manual' });
    expect(page.status).not.toBe(400);
  });
});
