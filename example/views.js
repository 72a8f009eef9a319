// HTML pages of the example app. Every value is escaped.

/** @param {unknown} value */
export function escapeHtml(value) {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#fafafa;color:#222}
nav{display:flex;gap:16px;align-items:center;padding:12px 24px;background:#fff;border-bottom:1px solid #eee}
nav .brand{font-weight:700;margin-right:auto}
nav a,button.link{color:#5b2bd6;text-decoration:none;font:inherit;font-weight:500}
nav a:hover,button.link:hover{text-decoration:underline}
nav .brand{color:#222}
main{max-width:640px;margin:40px auto;padding:0 16px}
.kudos-button{display:inline-flex;align-items:center;gap:10px;background:#5b2bd6;color:#fff;border:0;border-radius:8px;
  padding:12px 20px;font-family:inherit;font-size:1rem;font-weight:600;text-decoration:none;box-shadow:0 2px 6px #5b2bd655;cursor:pointer}
.kudos-button:hover{background:#4a20b8}
.kudos-button svg{width:22px;height:22px}
.tips{display:flex;flex-wrap:wrap;gap:12px}
.notice{background:#eef6ff;border:1px solid #bcd8ff;padding:10px 14px;border-radius:8px}
.error{background:#fde8e8;border:1px solid #f5b5b5;padding:10px 14px;border-radius:8px}
.card{background:#fff;border:1px solid #eee;border-radius:12px;padding:20px;margin:16px 0}
.avatar{width:72px;height:72px;border-radius:50%;vertical-align:middle;margin-right:12px}
table{border-collapse:collapse;width:100%}.table-scroll{overflow-x:auto}td,th{text-align:left;padding:6px;border-bottom:1px solid #eee}
pre{background:#f4f4f4;padding:12px;border-radius:8px;overflow:auto}
button.link{background:none;border:0;cursor:pointer;padding:0}
`;

/** The shop's icon: the heart of the login button on the theme's purple (served as /favicon.ico, SVG). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><rect width="24" height="24" rx="5" fill="#5b2bd6"/><path fill="#fff" d="M12 19s-6-3.7-7.7-7.3C3.1 9.1 4.8 6 7.6 6c1.6 0 2.8.9 3.5 2.1h.2C12 6.9 13.2 6 14.8 6c2.8 0 4.5 3.1 3.3 5.7C16.4 15.3 12 19 12 19z"/></svg>`;

const LOGO = `<svg viewBox="0 0 24 24" aria-hidden="true"><path fill="currentColor" d="M12 21s-7.5-4.6-9.6-9.1C.9 8.6 3 5 6.5 5c2 0 3.5 1.1 4.4 2.6h.2C12 6.1 13.5 5 15.5 5 19 5 21.1 8.6 19.6 11.9 17.5 16.4 12 21 12 21z"/></svg>`;

/**
 * @param {string} title
 * @param {string} body
 * @param {{ user?: { displayName: string } | undefined, csrf?: string | undefined }} [nav]
 */
function page(title, body, nav = {}) {
  const links = nav.user
    ? `<a href="/profile">Profile</a><a href="/payments">Payments</a>
<form method="post" action="/logout" style="margin:0"><input type="hidden" name="csrf" value="${escapeHtml(nav.csrf ?? '')}">
<button class="link" type="submit" id="logout">Log out</button></form>`
    : `<a href="/payments">Payments</a>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Kudos example shop</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="/favicon.ico" type="image/svg+xml"><style>${STYLE}</style></head>
<body><nav><a class="brand" href="/">Kudos example shop</a>${links}</nav><main>${body}</main></body></html>`;
}

/**
 * `kudosLogoutURL`: the emulator's sign-out, which comes back here: Kudos remembers who signed in
 * there (and that they consented), so this is the way to sign in here as another user.
 * @param {{ user?: { displayName: string }, message?: string, csrf?: string, kudosLogoutURL?: string }} model
 */
export function homePage({ user, message, csrf, kudosLogoutURL }) {
  const notice = message ? `<p class="notice" role="status" id="message">${escapeHtml(message)}</p>` : '';
  const switchUser = kudosLogoutURL
    ? `<p id="switch-user">Kudos remembers who signed in there: to sign in here as someone else (<code>bobby</code> / <code>builder</code>), <a href="${escapeHtml(kudosLogoutURL)}" id="kudos-logout">log out of Kudos</a> first; it brings you back here.</p>`
    : '';
  const body = user
    ? `${notice}<h1>Welcome back, ${escapeHtml(user.displayName)}</h1><p><a href="/profile">Go to your profile</a></p>`
    : `${notice}<h1>Kudos example shop</h1><p>Sign in to see your Kudos profile and tip a creator.</p>
<a class="kudos-button" id="login" href="/auth/kudos">${LOGO}<span>Sign in with Kudos</span></a>${switchUser}`;
  return page('Home', body, { user, csrf });
}

/**
 * @param {{ user: { id: string, displayName: string, avatar?: string }, expiresAt?: number, scope?: string[],
 *   csrf: string, apiResult?: unknown, apiError?: string, tipURL?: string, popupURL?: string, kudosOrigin: string }} model
 * `tipURL` and `popupURL` are undefined for the shop's own account, which tips would pay itself.
 */
export function profilePage({
  user,
  expiresAt,
  scope,
  csrf,
  apiResult,
  apiError,
  tipURL,
  popupURL,
  kudosOrigin,
}) {
  const avatar = user.avatar
    ? `<img class="avatar" id="avatar" src="${escapeHtml(user.avatar)}" alt="Avatar of ${escapeHtml(user.displayName)}">`
    : '';
  const expiry = expiresAt ? new Date(expiresAt).toISOString() : 'unknown';
  const api =
    apiResult !== undefined
      ? `<h2>Kudos API answer</h2><pre id="api-result">${escapeHtml(JSON.stringify(apiResult, null, 2))}</pre>`
      : apiError
        ? `<p class="error" role="alert" id="api-error">${escapeHtml(apiError)}</p>`
        : '';
  return page(
    'Profile',
    `<div class="card"><h1>${avatar}<span id="display-name">${escapeHtml(user.displayName)}</span></h1>
<table><tr><th>Kudos user ID</th><td id="user-id">${escapeHtml(user.id)}</td></tr>
<tr><th>Access token expires</th><td id="expires-at">${escapeHtml(expiry)}</td></tr>
<tr><th>Granted scopes</th><td id="scopes">${escapeHtml((scope ?? []).join(' ') || 'unknown')}</td></tr></table></div>
<form method="post" action="/profile/api"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
<button class="kudos-button" type="submit" id="call-api">Call the Kudos API</button></form>
${api}
${
  tipURL && popupURL
    ? `<div class="card"><h2>Tip a creator</h2><p class="tips"><a class="kudos-button" id="tip" href="${escapeHtml(tipURL)}">${LOGO}<span>Tip with Kudos</span></a>
<a class="kudos-button" id="tip-popup" href="${escapeHtml(popupURL)}" data-kudos-origin="${escapeHtml(kudosOrigin)}" data-csrf="${escapeHtml(csrf)}">${LOGO}<span>Tip in a popup</span></a></p>
<p id="tip-popup-result" role="status"></p></div>
<script src="/tip-popup.js" defer></script>`
    : `<div class="card"><h2>Tips</h2><p id="shop-account">You are signed in as the shop's own account: tips are paid to it, so there is nothing to tip here. <a href="/payments">Payments received</a> shows every tip; sign in as another user (alice) to tip.</p></div>`
}`,
    { user, csrf },
  );
}

/**
 * The widget's return page: what the shop says of the payment that came back.
 * @param {{ user?: { displayName: string }, csrf?: string, txHash: string,
 *   answer: { status: 'paid' | 'sent' | 'refused', message: string } }} model
 */
export function tipDonePage({ user, csrf, txHash, answer }) {
  const body =
    answer.status === 'refused'
      ? `<h1>Payment not completed</h1><p class="error" role="alert" id="tip-error">${escapeHtml(answer.message)}</p>`
      : `<h1>${answer.status === 'paid' ? 'Tip received' : 'Tip sent'}</h1><p id="tip-result" data-status="${escapeHtml(answer.status)}">${escapeHtml(answer.message)}
Transaction <code class="hash">${escapeHtml(txHash)}</code>; it is listed under <a href="/payments">Your tips</a>.</p>`;
  return page('Tip', body, { user, csrf });
}

/** A time as people read it, in UTC: `2026-11-23 11:36:08 UTC`. */
function readableTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? String(iso)
    : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** What a payment's outcome says on the page. */
const OUTCOMES = {
  paid: 'paid',
  underpaid: 'underpaid: to refund',
  already_paid: 'paid twice: to refund',
  unknown_order: 'no such tip: to look at',
  order_expired: 'tip expired: to refund',
  wrong_payer: 'another user’s tip: to refund',
  order_conflict: 'edited link: to look at',
  no_order: 'no tip named: to look at',
  not_to_wallet: 'paid to another wallet: check the wallet',
};

/**
 * What one read of the chain did (`reconcileChain()`'s counts): a read takes the transfers to the
 * shop's wallet made since the last read, so `seen` counts those new ones, never the table's rows.
 * @typedef {{ seen: number, processed: number, duplicates: number, failed: number, incomplete: boolean, busy?: boolean }} ChainRead
 * @param {ChainRead} read
 */
export function chainReadWords({ seen, processed, duplicates, failed, incomplete, busy }) {
  if (busy) return 'Another instance of the shop is reading the chain right now: its read covers this one.';
  const found =
    seen === 0
      ? 'Chain read: no new transfer to the shop since the last read (every payment so far is in the table).'
      : `Chain read: ${seen} new transfer${seen === 1 ? '' : 's'} to the shop since the last read: ${processed} credited now, ${duplicates} already credited${failed ? `, ${failed} kept to retry` : ''}.`;
  return incomplete
    ? `${found} Not all could be read or decided yet: the next read (within a minute) goes on.`
    : found;
}

/**
 * Payments: a user's own (the shop's account sees every one, and what waits to be processed).
 * @param {{ user?: { displayName: string }, csrf?: string,
 *   payments: Array<{ txHash: string, from: string, order: string | null, received: string, outcome: string, paid: boolean, receivedAt: string }>,
 *   unprocessed?: Array<{ kind: 'notification', txHash: string, status: string, attempts: number, lastError: string | null, receivedAt: number }
 *     | { kind: 'exception', txHash: string, reason: string, decidedAt: number }>,
 *   retried?: { processed: number, failed: number, remaining: number },
 *   reconciled?: ChainRead }} model
 */
export function paymentsPage({ user, csrf, payments, unprocessed, retried, reconciled }) {
  const rows = payments
    .map(
      (
        p,
      ) => `<tr class="payment"><td><code>${escapeHtml(p.txHash.slice(0, 12))}…</code></td><td>${escapeHtml(p.from)}</td>
<td class="received">${escapeHtml(p.received)}</td><td class="paid">${escapeHtml(OUTCOMES[p.outcome] ?? p.outcome)}</td><td>${escapeHtml(readableTime(p.receivedAt))}</td></tr>`,
    )
    .join('');
  const pending = (unprocessed ?? [])
    .map((u) =>
      u.kind === 'notification'
        ? `<tr class="unprocessed"><td><code>${escapeHtml(u.txHash.slice(0, 12))}…</code></td><td>not processed (${escapeHtml(u.status)}, ${escapeHtml(u.attempts)} attempts)</td>
<td class="last-error">${escapeHtml(u.lastError ?? '')}</td><td>${escapeHtml(readableTime(new Date(u.receivedAt).toISOString()))}</td></tr>`
        : `<tr class="exception"><td><code>${escapeHtml(u.txHash.slice(0, 12))}…</code></td><td>${escapeHtml(OUTCOMES[u.reason] ?? u.reason)}</td>
<td><form method="post" action="/payments/acknowledge" style="margin:0"><input type="hidden" name="csrf" value="${escapeHtml(csrf ?? '')}"><input type="hidden" name="txHash" value="${escapeHtml(u.txHash)}"><button type="submit" class="link acknowledge">Acknowledge</button></form></td><td>${escapeHtml(readableTime(new Date(u.decidedAt).toISOString()))}</td></tr>`,
    )
    .join('');
  const retriedLine = retried
    ? `<p id="retried" role="status">Retried: ${escapeHtml(retried.processed)} processed, ${escapeHtml(retried.failed)} failed, ${escapeHtml(retried.remaining)} remaining.</p>`
    : '';
  const reconciledLine = reconciled
    ? `<p id="reconciled" role="status">${escapeHtml(chainReadWords(reconciled))}</p>`
    : '';
  // The chain: where a tip that no notification and no return page brought is found.
  const historyCard =
    unprocessed && csrf
      ? `<div class="card"><h2>Missed payments</h2>${reconciledLine}<p>A tip whose notification never arrived (the payer’s browser failed after paying, or the shop was down) is found on the chain, which shows every payment to the shop’s wallet: read every minute, or now.</p>
<form method="post" action="/payments/reconcile"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" class="kudos-button" id="reconcile">Find missed payments</button></form></div>`
      : '';
  // The shop's card: what waits to be processed, and the payments to refund or look at.
  const unprocessedCard =
    unprocessed && csrf
      ? `<div class="card"><h2>To process or look at</h2>${retriedLine}${
          unprocessed.length
            ? `<div class="table-scroll"><table id="unprocessed"><tr><th>Transaction</th><th>What</th><th>Last error</th><th>Since</th></tr>${pending}</table></div>
<form method="post" action="/payments/retry"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" class="kudos-button" id="retry">Retry</button></form>`
            : '<p id="no-unprocessed">Every notification was processed.</p>'
        }</div>`
      : '';
  // The shop sees what it received; a payer, the tips it gave.
  const title = unprocessed ? 'Payments received' : 'Your tips';
  return page(
    title,
    `<h1>${title}</h1>${
      payments.length
        ? `<div class="table-scroll"><table id="payments"><tr><th>Transaction</th><th>From</th><th>Received</th><th>Credited</th><th>When</th></tr>${rows}</table></div>`
        : '<p id="no-payments">No payments yet.</p>'
    }${unprocessedCard}${historyCard}`,
    { user, csrf },
  );
}

/**
 * A readable error page: never a stack trace.
 * @param {{ status: number, title: string, message: string, user?: { displayName: string }, csrf?: string }} model
 */
export function errorPage({ status, title, message, user, csrf }) {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1><p class="error" role="alert" id="error-message">${escapeHtml(message)}</p>
<p>Error ${escapeHtml(status)}. <a href="/">Back to the home page</a></p>`,
    { user, csrf },
  );
}
