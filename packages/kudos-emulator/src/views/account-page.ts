import type { Grant } from '../state.js';
import { escapeHtml, hiddenFields, layout } from './layout.js';

/** The account page: authorized apps, each with a Revoke button. */
export function accountPage(
  userId: string,
  grants: Array<Grant & { clientName: string }>,
  csrf: string,
): string {
  const rows = grants
    .map(
      (
        g,
      ) => `<tr><td>${escapeHtml(g.clientName)}</td><td>${g.scope.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</td>
<td><form method="post" action="/in/account/revoke">${hiddenFields({ client_id: g.clientID, csrf })}
<button class="secondary" type="submit">Revoke</button></form></td></tr>`,
    )
    .join('');
  return layout(
    'Account',
    `<h1>Your Kudos account: ${escapeHtml(userId)}</h1><h2>Authorized apps</h2>
${grants.length ? `<table><tr><th>App</th><th>Scopes</th><th></th></tr>${rows}</table>` : '<p id="no-apps">No authorized apps.</p>'}
<form method="post" action="/in/logout">${hiddenFields({ csrf })}<button class="secondary" type="submit">Log out</button></form>`,
  );
}
