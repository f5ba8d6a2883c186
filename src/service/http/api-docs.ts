import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { embeddedSpaClient } from '../../contract/app-config';
import { appClientId } from '../identity/provider';

/**
 * Interactive API documentation at /docs: an OpenAPI 3.1 document built by @fastify/swagger from
 * the routes' declared zod schemas (src/contract, turned into JSON Schema by fastify-type-provider-zod), served as /docs/openapi.json
 * and shown with Swagger UI, where a user signs in with PKCE as the app's public client and can
 * call POST /client-credentials from the page (the interface's Authentication, step 3).
 */
export async function registerApiDocs(app: FastifyInstance, { publicUrl, issuer }: { publicUrl: string; issuer: string }) {
  const scopes = embeddedSpaClient.scopes.split(' ');
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Geometric Search Workbench API',
        version: '2',
        description:
          'The embedded service of the Geometric Search Workbench: the interface of the Physna Public API 2.0.1 it is a subset of, and this service\'s additions. Match thresholds are 0–100. Errors are {"error": {"message", "code"}}. Sign in with **Authorize** (PKCE), then create a client credential for your scripts with POST /client-credentials.',
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          signIn: {
            type: 'oauth2',
            description: 'Sign in as in the app (authorization code with PKCE, public client).',
            flows: {
              authorizationCode: {
                authorizationUrl: `${issuer}/v1/authorize`,
                tokenUrl: `${issuer}/v1/token`,
                scopes: Object.fromEntries(scopes.map((s) => [s, s])),
              },
            },
          },
          clientCredentials: {
            type: 'oauth2',
            description: 'Scripts: a credential made with POST /client-credentials.',
            flows: { clientCredentials: { tokenUrl: `${issuer}/v1/token`, scopes: { tenantApp: 'tenantApp', roles: 'roles' } } },
          },
        },
      },
      security: [{ signIn: scopes }, { clientCredentials: ['tenantApp', 'roles'] }],
    },
    hideUntagged: true,
    // A plugin's root route is registered as "/prefix/"; clients call "/prefix".
    transform: (route) => {
      const { schema, url } = jsonSchemaTransform(route);
      return { schema, url: url.length > 1 ? url.replace(/\/$/, '') : url };
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    initOAuth: { clientId: appClientId, usePkceWithAuthorizationCodeGrant: true, scopes },
    uiConfig: {
      oauth2RedirectUrl: `${publicUrl}${embeddedSpaClient.docsRedirectPath}`,
      tryItOutEnabled: true,
      persistAuthorization: false,
    },
  });
  app.get('/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
