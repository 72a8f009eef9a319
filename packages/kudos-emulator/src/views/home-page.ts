import { type EmulatorRoute, ROUTES } from '../server/route-table.js';
import { escapeHtml, layout } from './layout.js';

/** What the home page shows: the admin API's state (`GET /_emulator/state`). */
export interface HomeState {
  authURL: string;
  baseURL: string;
  now: string;
  clients: Array<{ clientID: string; name: string; redirectURIs: string[] }>;
  users: Array<{ id: string; displayName: string; wallet: string; kudosWallet: string }>;
  agents: Array<{
    id: string;
    wallet: string;
    kudosWallet: string;
    webhookURL: string | null;
    paymentRedirectURIs: string[];
    forwarding: { url: string; until: string } | null;
  }>;
  transactions: Array<Record<string, unknown>>;
  deliveries: Array<Record<string, unknown>>;
}

/** A transaction hash or a wallet address: long, and read by its first characters. */
const LONG_ID = /^([0-9A-F]{64}|(cosmos|kudos)1[0-9a-z]{38})$/;

/**
 * One value as shown in a table: a hash or wallet as its first characters, the whole value on hover
 * (`title`) and in `data-full` (what a copy button or a test reads); anything else as it is.
 */
function shown(value: unknown): string {
  const text = Array.isArray(value)
    ? value.join(', ')
    : value === undefined || value === null
      ? ''
      : String(value);
  if (!LONG_ID.test(text)) return escapeHtml(text);
  const short = `${text.slice(0, /^[0-9A-F]/.test(text) ? 10 : text.indexOf('1') + 8)}…`;
  return `<code class="short" title="${escapeHtml(text)}" data-full="${escapeHtml(text)}">${escapeHtml(short)}</code>`;
}

function table(headings: string[], rows: unknown[][], id: string): string {
  // Only long values may break anywhere (routes, URLs): a short word like `success` stays whole.
  const cell = (v: unknown) => `<td${String(v ?? '').length > 40 ? ' class="long"' : ''}>${shown(v)}</td>`;
  const head = headings.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.length
    ? rows.map((r) => `<tr>${r.map(cell).join('')}</tr>`).join('')
    : `<tr><td colspan="${headings.length}">None yet.</td></tr>`;
  // Long values wrap or are shortened, so a table fits the card; one that still cannot scrolls inside it.
  return `<div class="scroll"><table id="${id}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
}

/**
 * What became of a delivery, in words: its own answer (`delivered (200)`, `refused (401)`, `failed
 * (ECONNREFUSED)`), never the transaction's status (a successful payment whose notification nobody
 * took is not delivered).
 */
function deliveryStatus(answer: unknown): string {
  if (typeof answer === 'number')
    return answer >= 200 && answer < 300 ? `delivered (${answer})` : `refused (${answer})`;
  if (typeof answer === 'string' && answer !== '') return `failed (${answer})`;
  return 'sending';
}

function resendButton(id: unknown, csrf: string): string {
  return `<form method="post" action="/_emulator/deliveries/${escapeHtml(String(id))}/resend"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button class="secondary" type="submit">Resend</button></form>`;
}

/** The emulator's start page: endpoints, accounts, transactions and deliveries, like a cloud emulator's dashboard. */
export function homePage(s: HomeState, csrf: string): string {
  const endpoints = Object.values(ROUTES).map((route: EmulatorRoute) => [
    route.what,
    `${route.method} ${s.authURL}${route.path}`,
  ]);
  const deliveries = s.deliveries
    .map(
      (d) =>
        `<tr><td>${shown(d.id)}</td><td>${shown(d.at)}</td><td>${shown(d.agent)}</td><td class="long"><code>${shown(d.url)}</code></td><td>${shown(d.txHash)}</td><td>${shown(d.status)}</td><td class="delivery-status">${escapeHtml(deliveryStatus(d.answer))}</td><td>${shown(d.attempt)}</td><td>${resendButton(d.id, csrf)}</td></tr>`,
    )
    .join('');
  return layout(
    'Kudos emulator',
    `<h1>Kudos emulator</h1>
<p>authURL <code id="auth-url">${escapeHtml(s.authURL)}</code> · baseURL <code id="base-url">${escapeHtml(s.baseURL)}</code> · emulator clock <code id="clock">${escapeHtml(s.now)}</code> (transactions' times; deliveries are on the wall clock)</p>
<h2>Clients</h2>${table(
      ['client ID', 'name', 'redirect URIs'],
      s.clients.map((c) => [c.clientID, c.name, c.redirectURIs]),
      'clients',
    )}
<p id="redirect-rule">A redirect URI matches exactly, except that on a loopback host (<code>localhost</code>, <code>127.0.0.1</code>, <code>[::1]</code>) any port is accepted (RFC 8252 section 7.3): <code>http://localhost:3000/…</code> also allows <code>http://localhost:5173/…</code>.</p>
<h2>Users</h2>${table(
      ['user ID', 'display name', 'wallet (kudos1, as you configure it)', 'the same, legacy spelling'],
      s.users.map((u) => [u.id, u.displayName, u.kudosWallet, u.wallet]),
      'users',
    )}
<h2>Agents</h2>${table(
      ['agent ID', 'wallet (kudos1)', 'webhook', 'forwarding (listen)', 'payment redirects'],
      s.agents.map((a) => [
        a.id,
        a.kudosWallet,
        a.webhookURL ?? 'none',
        a.forwarding ? `${a.forwarding.url} until ${a.forwarding.until}` : 'off',
        a.paymentRedirectURIs,
      ]),
      'agents',
    )}
<h2>Recent transactions</h2>${table(
      ['hash', 'status', 'from', 'to', 'amounts', 'via', 'time (emulator clock)'],
      s.transactions.map((t) => [t.txHash, t.status, t.from, t.to, t.amounts, t.via, t.ts]),
      'transactions',
    )}
<h2>Webhook deliveries</h2><div class="scroll"><table id="deliveries"><thead><tr><th>delivery</th><th>time (wall clock)</th><th>agent</th><th>URL</th><th>hash</th><th>tx status</th><th>status</th><th>attempt</th><th>resend</th></tr></thead><tbody>${deliveries || '<tr><td colspan="9">None yet.</td></tr>'}</tbody></table></div>
<h2>Endpoints</h2>${table(['what', 'route'], endpoints, 'endpoints')}
<p><a href="/in/account">Your account</a></p>`,
    true,
  );
}
