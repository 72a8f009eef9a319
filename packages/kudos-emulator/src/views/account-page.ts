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

/** The sign-out page: one button; with a return address, where the app that sent the user is. */
export function logoutPage(userId: string, csrf: string, clientID?: string | null, back?: string): string {
  return layout(
    'Log out',
    `<h1>Log out of Kudos?</h1><p>You are signed in as <strong id="user">${escapeHtml(userId)}</strong>.</p>
<form method="post" action="/in/logout">${hiddenFields({ csrf, client_id: clientID ?? undefined, post_logout_redirect_uri: back })}
<button class="primary" type="submit">Log out</button></form>`,
  );
}
