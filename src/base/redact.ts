/** What replaces a secret in any text passport-kudos hands out. */
export const REDACTED_TEXT = '[REDACTED]';

function lowerHex(encoded: string): string {
  return encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

/**
 * Every form in which `secret` may come back from a server that echoes what it was sent: as is,
 * percent-encoded (`encodeURIComponent` and form encoding, with upper- or lower-case hex), and
 * JSON-escaped. Longest first, so that a longer form is replaced before a shorter one inside it.
 */
export function secretForms(secret: string): string[] {
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
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    for (const form of secretForms(secret)) out = out.split(form).join(REDACTED_TEXT);
  }
  return out;
}
