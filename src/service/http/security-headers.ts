import type { FastifyInstance } from 'fastify';

/**
 * CSP for the app: scripts from our own origin only, plus WebAssembly compilation (three's meshopt
 * decoder for viewer files); inline styles allowed because the 3D libraries set style attributes
 * (user text is never rendered as HTML, so there is no markup to inject them through); images may
 * be blob:/data: (thumbnails, previews); workers from blob: (three.js loaders, Vite workers). Dev
 * mode adds what Vite's HMR client needs (inline preamble, websocket).
 */
export function appCsp(dev: boolean): string {
  return [
    "default-src 'self'",
    dev ? "script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'" : "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    dev ? "connect-src 'self' ws: wss:" : "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Defaults for every answer Fastify sends; a route that sets its own CSP keeps it. */
export function registerSecurityHeaders(app: FastifyInstance, { dev }: { dev: boolean }) {
  const csp = appCsp(dev);
  app.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('x-frame-options', 'DENY');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('cross-origin-opener-policy', 'same-origin');
    return payload;
  });
}
