import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiNotFound } from './error-handler';
import { isApiPath, isIdentityPath } from './paths';

const immutable = 'public, max-age=31536000, immutable';
const revalidate = 'no-cache';

/** Whether a built app exists in `distDir`. */
export function hasBuiltApp(distDir: string): boolean {
  return fs.existsSync(path.join(distDir, 'index.html'));
}

/**
 * Serves the built app from `distDir`: hashed files under /assets cached for a year, everything
 * else (index.html, config.json) revalidated on every load so a new build or config is seen at once.
 */
export async function registerBuiltApp(app: FastifyInstance, distDir: string) {
  await app.register(fastifyStatic, {
    root: distDir,
    wildcard: true,
    cacheControl: false,
    setHeaders(reply, filePath) {
      const rel = path.relative(distDir, filePath).split(path.sep);
      reply.header('cache-control', rel[0] === 'assets' ? immutable : revalidate);
    },
  });
}

/**
 * `/config.json` from the build, with the service's own upload limit added when the file leaves it
 * out: the app must refuse locally exactly what the service would refuse (UPLOAD_MAX_BYTES). With
 * another OIDC provider configured, the app signs in there (issuer, client id, scopes).
 */
export function registerRuntimeConfig(
  app: FastifyInstance,
  distDir: string,
  facts: { uploadMaxBytes: number; signIn?: { issuer: string; clientId: string; scopes: string } },
) {
  app.get('/config.json', async (_request, reply) => {
    let text: string;
    try {
      text = await fs.promises.readFile(path.join(distDir, 'config.json'), 'utf8');
    } catch {
      return reply.callNotFound();
    }
    reply.header('cache-control', revalidate).type('application/json; charset=utf-8');
    let config: unknown;
    try {
      config = JSON.parse(text);
    } catch {
      // A broken file reaches the app as it is: its startup screen names the problem.
      return text;
    }
    if (typeof config !== 'object' || config === null || Array.isArray(config)) return text;
    // Another provider (OIDC_ISSUER) is the service's choice, not the build's: it wins.
    return { uploadMaxBytes: facts.uploadMaxBytes, ...config, ...facts.signIn };
  });
}

/** GET of an app route (a page, not a file or API call): answered with index.html. */
export function wantsAppPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (isApiPath(request.url) || isIdentityPath(request.url)) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

export function spaNotFoundHandler(spaAvailable: () => boolean) {
  return async function notFound(request: FastifyRequest, reply: FastifyReply) {
    if (wantsAppPage(request) && spaAvailable()) {
      return reply.header('cache-control', revalidate).type('text/html; charset=utf-8').sendFile('index.html');
    }
    const wire = apiNotFound(request.method, request.url);
    return reply.status(wire.status).send(wire.body);
  };
}
