import { z } from 'zod';

export const credentialNameSchema = z.string().trim().min(1).max(100);

export const createClientCredentialRequestSchema = z.object({
  name: credentialNameSchema.optional(),
});
export type CreateClientCredentialRequest = z.infer<typeof createClientCredentialRequestSchema>;

/** A credential as listed: the secret is never part of it. */
export const clientCredentialSchema = z.object({
  clientId: z.string(),
  name: z.string(),
  /** Null where the deployment does not say (the published API lists only the client id). */
  createdAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type ClientCredential = z.infer<typeof clientCredentialSchema>;

/** The one answer that carries the secret (shown once). */
export const createdClientCredentialSchema = z.object({
  clientCredentials: z.object({
    clientId: z.string(),
    clientSecret: z.string(),
    name: z.string(),
    createdAt: z.string(),
  }),
});
export type CreatedClientCredential = z.infer<typeof createdClientCredentialSchema>;

export const clientCredentialListResponseSchema = z.object({
  clientCredentials: z.array(clientCredentialSchema),
  /** The newest credential's client id, as the published API answers (it knows one per user). */
  clientId: z.string().optional(),
});
export type ClientCredentialListResponse = z.infer<typeof clientCredentialListResponseSchema>;

/** Token response of the client credentials grant (the client credentials grant of the published API). */
export const tokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;
