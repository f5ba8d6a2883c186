import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from './schema';

export interface ServiceKeys {
  /** Private signing keys (RS256), newest first; the provider signs with the first. */
  signingKeys: JWK[];
  /** Keys for signing cookies, newest first. */
  cookieKeys: string[];
  /** HMAC keys for signed upload and file addresses, newest first (files/signed-urls.ts). */
  urlSigningKeys: string[];
}

/**
 * Loads the provider's keys, generating and persisting them on first start so that tokens and
 * sessions survive restarts. Concurrent first starts agree: the first insert wins and both read it back.
 */
export async function loadOrCreateKeys(db: Kysely<Database>): Promise<ServiceKeys> {
  const signingKeys = await loadOrCreate(db, 'jwks', async () => [await newSigningKey()]);
  const cookieKeys = await loadOrCreate(db, 'cookie-keys', async () => [randomBytes(32).toString('base64url')]);
  const urlSigningKeys = await loadOrCreate(db, 'url-signing-keys', async () => [randomBytes(32).toString('base64url')]);
  return { signingKeys: signingKeys as JWK[], cookieKeys: cookieKeys as string[], urlSigningKeys: urlSigningKeys as string[] };
}

async function loadOrCreate(db: Kysely<Database>, id: string, create: () => Promise<unknown>): Promise<unknown> {
  const existing = await db.selectFrom('keys').select('value').where('id', '=', id).executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto('keys')
    .values({ id, value: JSON.stringify(await create()) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const row = await db.selectFrom('keys').select('value').where('id', '=', id).executeTakeFirstOrThrow();
  return row.value;
}

async function newSigningKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: randomBytes(12).toString('base64url'), alg: 'RS256', use: 'sig' };
}

/** The public half of a private JWK (what the JWKS endpoint publishes). */
export function publicJwk({ kty, n, e, kid, alg, use }: JWK): JWK {
  return { kty, n, e, kid, alg, use };
}
