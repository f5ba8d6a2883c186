/** Paths the API owns (signed upload and file addresses included): answers are JSON, errors in the contract's shape. */
export function isApiPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return /^\/(v2|client-credentials|uploads|files)(\/|$)/.test(path);
}

/** Health, readiness and metrics for operators (never the SPA). */
export function isOperationsPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return /^\/(healthz|readyz|metrics)$/.test(path);
}

/** The interactive API documentation (served by the service, never the SPA). */
export function isDocsPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return /^\/docs(\/|$)/.test(path);
}

/** Paths of the identity provider and its sign-in page (never the SPA). */
export function isIdentityPath(url: string): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return /^\/(oauth2|signin)(\/|$)/.test(path);
}
