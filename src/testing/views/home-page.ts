import type { EmulatorState } from '../state.js';
import { escapeHtml, layout } from './layout.js';

/** The emulator's start page: its endpoints and accounts, like a cloud emulator's dashboard. */
export function homePage(state: EmulatorState): string {
  const rows = (pairs: Array<[string, string]>) =>
    pairs
      .map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td><code>${escapeHtml(v)}</code></td></tr>`)
      .join('');
  return layout(
    'Kudos emulator',
    `<h1>Kudos emulator</h1><table>${rows([
      ['authURL', state.authURL],
      ['baseURL', state.baseURL],
      ['authorization page', `${state.authURL}/in/oauth/`],
      ['token endpoint', `${state.baseURL}/oauth/access_token`],
      ['revocation endpoint', `${state.baseURL}/oauth/revoke`],
      ['payment widget', `${state.authURL}/in/widget/pay`],
      ['transaction lookup', `${state.baseURL}/cosmos/tx/v1beta1/txs/{hash}`],
    ])}</table>
<h2>Clients</h2><table>${rows([...state.clients.values()].map((c) => [c.name, c.clientID]))}</table>
<h2>Users</h2><table>${rows([...state.users.values()].map((u) => [u.id, u.displayName ?? u.id]))}</table>
<p><a href="/in/account">Your account</a></p>`,
  );
}
