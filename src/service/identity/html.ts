import { createHash, randomBytes } from 'node:crypto';

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => entities[c] ?? c);
}

export const productName = 'Geometric Search Workbench';

const styles = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:grid;place-items:center;background:#f3f4f6;color:#111827;
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:min(380px,calc(100vw - 32px));background:#fff;border:1px solid #e5e7eb;border-radius:12px;
padding:32px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
.product{margin:0 0 4px;color:#4b5563;font-size:14px;font-weight:600;letter-spacing:.02em}
h1{margin:0 0 24px;font-size:24px}
label{display:block;margin:16px 0 6px;font-weight:600;font-size:14px}
input{width:100%;padding:10px 12px;border:1px solid #d1d5db;border-radius:8px;font:inherit}
input:focus{outline:2px solid #2563eb;outline-offset:1px;border-color:#2563eb}
button{margin-top:24px;width:100%;padding:10px 12px;border:0;border-radius:8px;background:#2563eb;color:#fff;
font:inherit;font-weight:600;cursor:pointer}
button:hover{background:#1d4ed8}
[role=alert]{margin:0 0 8px;padding:10px 12px;border-radius:8px;background:#fef2f2;color:#991b1b;border:1px solid #fecaca}
`;

const styleHash = `'sha256-${createHash('sha256').update(styles).digest('base64')}'`;

/** CSP for the server-rendered pages: no scripts unless a nonce is given, only our own inline style. */
export function pageCsp(scriptNonce?: string): string {
  return [
    "default-src 'none'",
    `style-src ${styleHash}`,
    scriptNonce ? `script-src 'nonce-${scriptNonce}'` : "script-src 'none'",
    "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** A complete page around trusted `body` markup (callers escape what they interpolate). */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · ${productName}</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${styles}</style>
</head>
<body>
<main>
<p class="product">${productName}</p>
${body}
</main>
</body>
</html>`;
}
