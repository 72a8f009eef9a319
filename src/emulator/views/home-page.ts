import { type EmulatorRoute, ROUTES } from '../route-table.js';
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
    ])}</table>
<h2>Endpoints</h2><table>${Object.values(ROUTES)
      .map((route: EmulatorRoute) => {
        const url = `${route.base === 'baseURL' ? state.origin : state.authURL}${route.path}`;
        return `<tr><th>${escapeHtml(route.what)}</th><td><code>${route.method} ${escapeHtml(url)}</code></td></tr>`;
      })
      .join('')}</table>
<h2>Clients</h2><table>${rows([...state.clients.values()].map((c) => [c.name, c.clientID]))}</table>
<h2>Users</h2><table>${rows([...state.users.values()].map((u) => [u.id, u.displayName ?? u.id]))}</table>
<p><a href="/in/account">Your account</a></p>`,
  );
}
