import { lastSegmentBounds, splitTarget } from './url-path.js';

/** What replaces a secret in any text a Kudos package hands out. */
const REDACTED_TEXT = '[REDACTED]';

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

/**
 * Every form in which `secret` may come back from a server that echoes what it was sent: as is,
 * percent-encoded (`encodeURIComponent` and form encoding, with upper- or lower-case hex), and
 * JSON-escaped. Longest first, so that a longer form is replaced before a shorter one inside it.
 */
function secretForms(secret: string): string[] {
  const form = new URLSearchParams({ s: secret }).toString().slice(2);
  const uri = encodeURIComponent(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = new Set([secret, uri, lowerHex(uri), form, lowerHex(form), json]);
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/**
 * Replaces every occurrence of each secret, in each of its {@link secretForms}, with
 * `[REDACTED]`. Plain string search (no regular expression built from the secret), linear in the
 * length of `text` for each form.
 */
export function redactSecrets(text: string, secrets: readonly string[], replacement = REDACTED_TEXT): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of secretForms(secret)) out = out.split(form).join(replacement);
  }
  return out;
}

/** Shortest webhook secret the receiver accepts: a shorter path segment is not taken for one. */
export const MIN_WEBHOOK_SECRET_LENGTH = 16;

/** What replaces a secret in a URL (no brackets: they would be percent-encoded). */
export const REDACTED_IN_URL = 'REDACTED';

/** Query parameters that may carry a secret, compared in lower case. */
const SECRET_PARAMS = new Set(['token', 'secret', 'key', 'signature', 'access_token']);

/** Whether a query parameter may carry a secret: by its name, any case, also as `token[]` or `token[a]`. */
function isSecretParam(name: string): boolean {
  const bracket = name.indexOf('[');
  return SECRET_PARAMS.has((bracket === -1 ? name : name.slice(0, bracket)).toLowerCase());
}

/**
 * A webhook URL (absolute, or a request target `/path?query`) fit to show and log: credentials
 * removed, secret-named query parameters (`token`, `secret`, `key`, `signature`, `access_token`,
 * any case, also as `token[]`) redacted, and the last non-empty path segment redacted when it is at least
 * `minSegment` characters, unless the secret was carried in `?token=` (the receiver's two places
 * for a secret); a fragment is replaced whole. String operations, not `new URL()`: a target such as
 * `//x` would read as a host there.
 */
export function redactWebhookURL(given: string, minSegment = 1): string {
  // An http(s) URL's backslashes before its query are slashes to a URL parser (WHATWG URL, which
  // Node's fetch and browsers use): `http://host:3001\SECRET` is sent to `/SECRET`. Read so here too.
  const url = /^https?:\/\//i.test(given)
    ? given.replace(/^[^?#]*/, (target) => target.replaceAll('\\', '/'))
    : given;
  let origin = '';
  let rest = url;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (scheme) {
    const authorityEnd = url.slice(scheme[0].length).search(/[/?#]/);
    const end = authorityEnd === -1 ? url.length : scheme[0].length + authorityEnd;
    const authority = url.slice(scheme[0].length, end);
    origin = scheme[0] + authority.slice(authority.lastIndexOf('@') + 1);
    rest = url.slice(end);
  }
  // A fragment is never sent to a server, so it carries nothing the receiver checks: hidden whole.
  const hash = rest.indexOf('#');
  const fragment = hash === -1 ? '' : `#${REDACTED_IN_URL}`;
  if (hash !== -1) rest = rest.slice(0, hash);
  let { path, search } = splitTarget(rest);
  const query = new URLSearchParams(search);
  const entries = [...query];
  if (entries.some(([name]) => isSecretParam(name))) {
    const redacted = entries.map(([name, value]): [string, string] => [
      name,
      isSecretParam(name) ? REDACTED_IN_URL : value,
    ]);
    search = `?${new URLSearchParams(redacted).toString()}`;
  }
  if (!query.has('token')) {
    const { start, end } = lastSegmentBounds(path);
    if (end - start >= Math.max(1, minSegment))
      path = `${path.slice(0, start)}${REDACTED_IN_URL}${path.slice(end)}`;
  }
  return origin + path + search + fragment;
}
