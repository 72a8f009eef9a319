import type { EmulatorClient } from '../emulator-options.js';
import { escapeHtml, hiddenFields, layout } from './layout.js';

/** The login page; `next` is where to go after logging in; `demo` names the demo accounts. */
export function loginPage(next: string, error?: string, demo: readonly string[] = [], token = ''): string {
  const accounts = demo.length
    ? `<p id="demo-users">Demo users: ${demo.map((d) => `<code>${escapeHtml(d)}</code>`).join(', ')}</p>`
    : '';
  return layout(
    'Log in',
    `<h1>Log in to Kudos</h1>${accounts}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/in/login">${hiddenFields({ next, form_token: token })}
<label for="username">Username</label><input type="text" id="username" name="username" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<button class="primary" type="submit">Log in</button></form>
<p>No account? <a href="/in/register?next=${encodeURIComponent(next)}">Register</a></p>`,
  );
}

export function registerPage(
  next: string,
  error?: string,
  values: Record<string, string> = {},
  token = '',
): string {
  return layout(
    'Register',
    `<h1>Create a Kudos account</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/in/register">${hiddenFields({ next, form_token: token })}
<label for="username">Username (lower-case letters, digits, -)</label>
<input type="text" id="username" name="username" value="${escapeHtml(values.username ?? '')}" required>
<label for="displayName">Display name</label>
<input type="text" id="displayName" name="displayName" value="${escapeHtml(values.displayName ?? '')}">
<label for="email">E-mail</label><input type="email" id="email" name="email" value="${escapeHtml(values.email ?? '')}">
<label for="password">Password (8 characters or more)</label><input type="password" id="password" name="password" required>
<button class="primary" type="submit">Register</button></form>`,
  );
}

/** One requested scope and its description (docs/kudos-service.md#scopes). */
interface ScopeLine {
  scope: string;
  description: string;
}

/** The consent page: the client's name, each requested scope, Accept and Decline. */
export function consentPage(
  client: Required<EmulatorClient>,
  userId: string,
  scopes: ScopeLine[],
  fields: Record<string, string | undefined>,
): string {
  const items = scopes
    .map((s) => `<li><code>${escapeHtml(s.scope)}</code>: ${escapeHtml(s.description)}</li>`)
    .join('');
  return layout(
    'Authorize',
    `<h1><span id="client-name">${escapeHtml(client.name)}</span> wants to access your Kudos account</h1>
<p>Signed in as <strong id="current-user">${escapeHtml(userId)}</strong>.</p>
<p>It asks for:</p><ul class="scopes">${items}</ul>
<form method="post" action="/in/oauth/">${hiddenFields(fields)}
<button class="primary" type="submit" name="decision" value="accept">Accept</button>
<button class="secondary" type="submit" name="decision" value="decline">Decline</button></form>`,
  );
}
