import { z } from 'zod';

/**
 * Runtime config of the web app, served as `/config.json` (how the app finds the API and the sign-in).
 * URLs may be relative; the app resolves them against its own origin, so one file
 * serves the embedded default on any port.
 */
export const appConfigSchema = z.object({
  baseUrl: z.string().min(1),
  authUrl: z.string().min(1),
  clientId: z.string().min(1),
  scopes: z.string().min(1),
  /**
   * The OIDC issuer the app signs in at, when it is not the embedded provider under `authUrl`
   * (`${authUrl}/oauth2/default`). Client credentials still come from `authUrl`'s token endpoint.
   */
  issuer: z.string().min(1).optional(),
  /**
   * Largest model file the service accepts, in bytes (the service's UPLOAD_MAX_BYTES). Optional:
   * without it clients assume DEFAULT_UPLOAD_MAX_BYTES, the service's default.
   */
  uploadMaxBytes: z.number().int().positive().optional(),
});
export type AppConfig = z.infer<typeof appConfigSchema>;

/**
 * The service's default upload limit (UPLOAD_MAX_BYTES unset): 4 GiB. Uploads stream to the
 * store, and mesh files this large are read a piece at a time (service/ingest/large-mesh.ts).
 */
export const DEFAULT_UPLOAD_MAX_BYTES = 4 * 1024 * 1024 * 1024;

/** The embedded default's OIDC public client and scopes; the service registers the same. */
export const embeddedSpaClient = {
  clientId: 'workbench-app',
  scopes: 'openid profile tenant roles offline_access',
  redirectPath: '/auth/callback',
  postLogoutPath: '/',
  /** The API documentation page (/docs) signs in as the same public client and returns here. */
  docsRedirectPath: '/docs/static/oauth2-redirect.html',
} as const;

/** Claims the identity provider puts in ID tokens (beyond the standard ones). */
export const idTokenClaimsSchema = z.object({
  sub: z.string(),
  name: z.string().optional(),
  email: z.string().optional(),
  tenant: z.string().optional(),
  tenant_name: z.string().optional(),
  roles: z.array(z.string()).optional(),
});

/** Claims of access tokens the API accepts (tenant, roles, user). */
export const accessTokenClaimsSchema = z.object({
  sub: z.string(),
  tenant: z.string(),
  roles: z.array(z.string()),
  client_id: z.string().optional(),
});
export type AccessTokenClaims = z.infer<typeof accessTokenClaimsSchema>;

export const roles = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof roles)[number];
