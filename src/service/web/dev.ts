import type { Server } from 'node:http';
import path from 'node:path';
import type { ViteDevServer } from 'vite';

/** Vite in middleware mode on the service's own HTTP server: one origin, HMR over the same port. */
export async function createViteDevServer(root: string, server: Server): Promise<ViteDevServer> {
  const { createServer } = await import('vite');
  return createServer({
    root,
    configFile: path.join(root, 'vite.config.ts'),
    appType: 'spa',
    server: { middlewareMode: true, hmr: { server } },
  });
}
