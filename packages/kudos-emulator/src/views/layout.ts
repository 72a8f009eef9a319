/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Hidden form inputs for each field. */
export function hiddenFields(fields: Record<string, string | undefined>): string {
  return Object.entries(fields)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('');
}

const STYLE = `
body{font-family:system-ui,sans-serif;background:#f4f1fb;margin:0;color:#1d1530}
header{background:#5b2bd6;color:#fff;padding:12px 24px;font-weight:600}
header small{font-weight:400;opacity:.8;margin-left:8px}
main{max-width:460px;margin:40px auto;background:#fff;border-radius:12px;padding:28px;box-shadow:0 2px 12px #0002}
h1{font-size:1.3rem;margin-top:0}
label{display:block;margin:12px 0 4px}
input[type=text],input[type=password],input[type=email]{width:100%;padding:8px;box-sizing:border-box;border:1px solid #bbb;border-radius:6px}
button{padding:9px 18px;border-radius:6px;border:0;font-size:1rem;cursor:pointer;margin:14px 8px 0 0}
.primary{background:#5b2bd6;color:#fff}.secondary{background:#e6e1f2;color:#1d1530}
.error{background:#fde8e8;color:#8a1c1c;padding:10px;border-radius:6px}
ul.scopes li{margin:6px 0} code{background:#f0ecf9;padding:1px 4px;border-radius:4px}
table{border-collapse:collapse;width:100%} td,th{text-align:left;padding:6px;border-bottom:1px solid #eee}
main.wide{max-width:none;margin:24px;box-sizing:border-box}
.scroll{overflow-x:auto;max-width:100%}
.scroll th{white-space:nowrap}
.scroll td{vertical-align:top}
.scroll td.long{overflow-wrap:anywhere}
.scroll td button{white-space:nowrap}
code.short{white-space:nowrap;cursor:help}
#tx-hash{overflow-wrap:anywhere}
`;

/** The favicon: Kudos's purple square with a heart (served at /favicon.ico, as SVG). */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#5b2bd6"/><path d="M16 25s-8-4.6-8-10.2A4.4 4.4 0 0 1 16 12a4.4 4.4 0 0 1 8 2.8C24 20.4 16 25 16 25z" fill="#fff"/></svg>`;

/** The page frame shared by every emulator page; `wide` for pages of tables (the home page). */
export function layout(title: string, body: string, wide = false): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · Kudos emulator</title>
<meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="/favicon.ico" type="image/svg+xml"><style>${STYLE}</style></head>
<body><header>Kudos<small>local emulator</small></header><main${wide ? ' class="wide"' : ''}>${body}</main></body></html>`;
}

/** An error page, with the error code when there is one: the emulator never redirects to an address it cannot trust. */
export function errorPage(title: string, message: string, code?: string): string {
  const shown =
    code === undefined ? '' : `<p>Error code: <code id="error-code">${escapeHtml(code)}</code></p>`;
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>${shown}<p class="error" role="alert">${escapeHtml(message)}</p>`,
  );
}
