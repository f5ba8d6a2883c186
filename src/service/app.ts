import middie from '@fastify/middie';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyServerFactory } from 'fastify';
import type { Provider } from 'oidc-provider';
import type { Connect } from 'vite';
import rateLimit from '@fastify/rate-limit';
import { defaultThrottle, type ThrottleConfig } from './config';
import { createAuthenticator, type Authenticator } from './http/auth';
import type { ExternalOidcConfig } from './identity/external-issuer';
import { RateLimited } from './http/errors';
import { validatorCompiler, serializerCompiler } from 'fastify-type-provider-zod';
import { apiErrorBodySchema } from '../contract/errors';
import { createMetrics, type ServiceMetrics } from './metrics';
import { operationRoutes } from './routes/operations';
import { stateCounts } from './store/models';
import { createBruteForceGuard } from './identity/throttle';
import { registerErrorHandling } from './http/error-handler';
import { duplicateReportRoutes } from './routes/v2/duplicate-reports';
import { duplicateDecisionRoutes, matchFeedbackRoutes } from './routes/v2/duplicate-decisions';
import { isApiPath, isDocsPath, isIdentityPath, isOperationsPath } from './http/paths';
import { registerApiDocs } from './http/api-docs';
import helmet from '@fastify/helmet';
import { hasBuiltApp, registerBuiltApp, registerRuntimeConfig, spaNotFoundHandler } from './http/spa';
import { apiAudience, appClientId, createProvider, identityMountPath, issuerFor } from './identity/provider';
import { signInRoutes } from './routes/signin';
import { clientCredentialRoutes } from './routes/client-credentials';
import { publishedFieldsOnly } from './routes/published-fields';
import type { BlobStore } from './files/blob-store';
import { fileRoutes } from './routes/model-files';
import { ModelLifecycle } from './store/model-lifecycle';
import { ModelFiles } from './files/model-files';
import { createUrlSigner } from './files/signed-urls';
import type { IngestQueue } from './ingest/ingest-queue';
import { folderDuplicateRoutes } from './routes/v2/folder-duplicates';
import { folderRoutes } from './routes/v2/folders';
import { matchRoutes } from './routes/v2/matches';
import { modelReportRoutes } from './routes/v2/model-reports';
import { addedDuplicateRoutes } from './routes/v2/added-duplicates';
import { whereUsedRoutes } from './routes/v2/where-used';
import { webhookRoutes } from './routes/v2/webhooks';
import { classProposalRoutes } from './routes/v2/class-proposals';
import { deviationReportRoutes } from './routes/v2/deviation-reports';
import { webhookEvents } from './webhooks/events';
import { metadataKeyRoutes } from './routes/v2/metadata-keys';
import { metadataRoutes } from './routes/v2/metadata';
import { userRoutes } from './routes/v2/users';
import { modelRoutes } from './routes/v2/models';
import { imageRoutes } from './routes/v2/images';
import { sketchRoutes } from './routes/v2/sketches';
import { imageUploadRoutes } from './routes/image-uploads';
import { createImageUrlSigner } from './images/image-urls';
import { ModelViewCache } from './images/model-view-cache';
import { publicJwk, type ServiceKeys } from './store/keys';
import type { Store } from './store/database';
import { DEFAULT_UPLOAD_MAX_BYTES } from '../contract/app-config';

export interface AppOptions {
  store: Store;
  keys: ServiceKeys;
  publicUrl: string;
  /** How the web app is served: built files from a directory, Vite's dev middleware, or not at all. */
  web: { kind: 'dist'; distDir: string } | { kind: 'vite'; middlewares: Connect.Server } | { kind: 'none' };
  /** false (tests), or the service's logger (log.ts) that Fastify then logs through. */
  logger?: false | FastifyBaseLogger;
  serverFactory?: FastifyServerFactory;
  /** Model files and derived files (local directory or S3). */
  blobStore: BlobStore;
  /** Ingestion; without one, uploaded models stay `processing` (nothing is faked). */
  ingestQueue?: IngestQueue | undefined;
  /** Largest model file accepted (UPLOAD_MAX_BYTES). */
  uploadMaxBytes?: number;
  /** Brute-force and API request limits (default: config.ts's defaults). */
  throttle?: ThrottleConfig;
  /** Where requests are timed and counts read (GET /metrics); a fresh registry by default. */
  metrics?: ServiceMetrics;
  /** Another OIDC provider the app signs in at and whose tokens the API accepts (OIDC_ISSUER). */
  oidc?: ExternalOidcConfig | undefined;
  /** Answer only the fields of this OpenAPI document's response schemas (PUBLISHED_FIELDS_ONLY). */
  publishedFieldsOnly?: string | undefined;
  /** Webhooks may reach private and loopback addresses (WEBHOOKS_ALLOW_PRIVATE). */
  webhooksAllowPrivate?: boolean;
}

export interface BuiltApp {
  app: FastifyInstance;
  provider: Provider;
  issuer: string;
  authenticate: Authenticator;
  files: ModelFiles;
}

/**
 * Builds the whole service on one Fastify instance without listening (server.ts listens):
 * external plugins, then the identity provider, sign-in page, API and web app, one error handler.
 */
export async function buildApp({
  store,
  keys,
  publicUrl,
  web,
  logger = false,
  serverFactory,
  blobStore,
  ingestQueue,
  uploadMaxBytes = DEFAULT_UPLOAD_MAX_BYTES,
  throttle = defaultThrottle,
  metrics = createMetrics(),
  oidc,
  publishedFieldsOnly: publishedDocument,
  webhooksAllowPrivate = false,
}: AppOptions): Promise<BuiltApp> {
  const { db } = store;
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    // Per-request lines would drown the useful ones; errors are logged by the error handler.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    trustProxy: publicUrl.startsWith('https:'),
    ...(serverFactory ? { serverFactory } : {}),
  });

  // Every route's schemas are the contract's zod schemas (src/contract): they check the request
  // and check and write the answer, and /docs is made from them (http/api-docs.ts). A request
  // without a body is checked as an empty object, so a body whose fields are all optional may be left out.
  app.setValidatorCompiler((route) => {
    const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
    return route.httpPart === 'body' ? (data: unknown) => validate(data ?? {}) : validate;
  });
  app.setSerializerCompiler(serializerCompiler);

  // An empty JSON body means "no fields" (POST /client-credentials may carry none).
  const json = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '') return done(null, undefined);
    json(request, body as string, done);
  });

  const issuer = issuerFor(publicUrl);
  const perAddress = { perAddress: throttle.signInFailuresPerAddress, addressWindowSeconds: 600 };
  const provider = createProvider({
    db,
    publicUrl,
    signingKeys: keys.signingKeys,
    cookieKeys: keys.cookieKeys,
    tokenGuard: createBruteForceGuard(db, 'token', {
      perSubject: throttle.tokenFailuresPerClient,
      subjectWindowSeconds: 60,
      ...perAddress,
    }),
  });

  await app.register(middie, { hook: 'onRequest' });
  app.use(identityMountPath, provider.callback());
  if (web.kind === 'vite') {
    const vite = web.middlewares;
    // Vite would answer HTML requests for any path; the service's own paths must reach Fastify.
    app.use((req, res, next) =>
      isApiPath(req.url ?? '/') || isIdentityPath(req.url ?? '/') || isDocsPath(req.url ?? '/') || isOperationsPath(req.url ?? '/')
        ? next()
        : vite(req, res, next),
    );
  }

  const dev = web.kind === 'vite';
  // Security headers on every answer Fastify sends; a route that sets its own CSP (the sign-in
  // page) keeps it. The app's CSP: scripts from our own origin only, plus WebAssembly compilation
  // (three's meshopt decoder for viewer files); inline styles allowed because the 3D libraries
  // set style attributes (user text is never rendered as HTML, so there is no markup to inject
  // them through); images may be blob:/data: (thumbnails, previews); workers from blob: (three.js
  // loaders, Vite workers). Dev mode adds what Vite's HMR client needs (inline preamble,
  // websocket). HSTS only where the service is reached over https.
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: dev ? ["'self'", "'unsafe-inline'", "'wasm-unsafe-eval'"] : ["'self'", "'wasm-unsafe-eval'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'blob:', 'data:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: dev ? ["'self'", 'ws:', 'wss:'] : ["'self'"],
        workerSrc: ["'self'", 'blob:'],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginOpenerPolicy: { policy: 'same-origin' },
    strictTransportSecurity: publicUrl.startsWith('https:') ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  // Checked per request: a rebuild (which empties dist/) must not leave the server without the app.
  const spaAvailable = web.kind === 'dist' ? () => hasBuiltApp(web.distDir) : () => false;
  registerErrorHandling(app, spaNotFoundHandler(spaAvailable));
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  metrics.observe({
    modelsByState: () => stateCounts(db, null, null),
    ...(ingestQueue?.depth ? { queueDepth: () => ingestQueue.depth!() } : {}),
  });
  await app.register(operationRoutes, { db, blobStore, queue: ingestQueue, metrics });
  // Before the routes: the documentation collects them as they are added.
  await registerApiDocs(app, { publicUrl, issuer });

  await app.register(signInRoutes, {
    db,
    provider,
    csrfKey: keys.cookieKeys[0] ?? '',
    secureCookies: publicUrl.startsWith('https:'),
    guard: createBruteForceGuard(db, 'signin', { perSubject: throttle.signInFailuresPerAccount, subjectWindowSeconds: 60, ...perAddress }),
  });

  const signer = createUrlSigner({ publicUrl, keys: keys.urlSigningKeys });
  const deliveries = ingestQueue?.sendDeliveries;
  const events = webhookEvents(deliveries ? { sendDeliveries: deliveries } : undefined);
  const lifecycle = new ModelLifecycle(db, ingestQueue, events);
  const files = new ModelFiles({ db, blobStore, signer, lifecycle, uploadMaxBytes });
  // Signed addresses: outside the API's bearer-token hook, the signature is the authorisation.
  await app.register(fileRoutes, { db, blobStore, signer, files, uploadMaxBytes });
  // Image search (issue 7): query images' signed PUT, same rules as model uploads.
  const imageSigner = createImageUrlSigner({ publicUrl, keys: keys.urlSigningKeys });
  const modelViews = new ModelViewCache();
  await app.register(imageUploadRoutes, { db, signer: imageSigner });

  const authenticate = createAuthenticator({
    db,
    issuer,
    audience: apiAudience,
    appClientId,
    publicKeys: keys.signingKeys.map(publicJwk),
    external: oidc,
  });
  await app.register(async (api) => {
    // The API speaks JSON only; anything else is a 415 rather than a confusing 400.
    api.removeContentTypeParser('text/plain');
    // Authenticate before the body is read: an anonymous caller learns nothing about the route.
    // Every API answer but a success is the contract's error, documented on each operation.
    api.addHook('onRoute', (route) => {
      if (route.schema?.response && typeof route.schema.response === 'object') {
        route.schema.response = { ...route.schema.response, '4xx': apiErrorBodySchema };
      }
    });
    api.addHook('onRequest', async (request) => {
      request.auth = await authenticate(request);
    });
    // Per token, after it was verified (preParsing runs after onRequest): generous enough that the
    // app and the upload engine never meet it, a brake on a runaway script. Counted per process.
    await api.register(rateLimit, {
      hook: 'preParsing',
      max: throttle.apiRequestsPerMinute,
      timeWindow: 60_000,
      keyGenerator: (request) => `${request.auth?.clientId}:${request.auth?.userId}`,
      errorResponseBuilder: (_request, context) =>
        new RateLimited(
          `Too many requests with this token (more than ${context.max} a minute); try again in ${context.after}.`,
          Math.ceil(context.ttl / 1000),
        ),
    });
    api.addHook('onSend', async (_request, reply, payload) => {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    });
    if (publishedDocument) publishedFieldsOnly(api, publishedDocument);
    await api.register(clientCredentialRoutes, { db, prefix: '/client-credentials' });
    await api.register(clientCredentialRoutes, { db, prefix: '/v2/client-credentials' });
    await api.register(folderRoutes, { db, files, prefix: '/v2/folders' });
    await api.register(modelRoutes, { db, blobStore, files, lifecycle, prefix: '/v2/models' });
    await api.register(matchRoutes, { db, files, prefix: '/v2/models' });
    await api.register(modelReportRoutes, { db, files, prefix: '/v2/models' });
    await api.register(addedDuplicateRoutes, { db, files, prefix: '/v2/models' });
    await api.register(whereUsedRoutes, { db, files, prefix: '/v2/models' });
    await api.register(deviationReportRoutes, { db, blobStore, prefix: '/v2/models' });
    await api.register(webhookRoutes, { db, events, allowPrivate: webhooksAllowPrivate, prefix: '/v2/webhooks' });
    await api.register(folderDuplicateRoutes, { db, files, prefix: '/v2/folders' });
    await api.register(duplicateReportRoutes, { db, files, queue: ingestQueue, prefix: '/v2/duplicate-reports' });
    await api.register(duplicateDecisionRoutes, { db, blobStore, lifecycle, prefix: '/v2/duplicate-decisions' });
    await api.register(matchFeedbackRoutes, { db, prefix: '/v2/models' });
    await api.register(metadataKeyRoutes, { db, prefix: '/v2/metadata-keys' });
    await api.register(classProposalRoutes, { db, files, prefix: '/v2/metadata-keys' });
    await api.register(metadataRoutes, { db, prefix: '/v2/metadata' });
    await api.register(userRoutes, { db, prefix: '/v2/users' });
    await api.register(imageRoutes, { db, files, signer: imageSigner, cache: modelViews, prefix: '/v2/images' });
    await api.register(sketchRoutes, { db, files, cache: modelViews, prefix: '/v2/sketches' });
  });

  if (web.kind === 'dist') {
    registerRuntimeConfig(app, web.distDir, {
      uploadMaxBytes,
      ...(oidc ? { signIn: { issuer: oidc.issuer, clientId: oidc.clientId, scopes: oidc.scopes } } : {}),
    });
    await registerBuiltApp(app, web.distDir);
  }

  return { app, provider, issuer, authenticate, files };
}
