import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { ClientCredentialRow, Database } from './schema';

/** Client ids of user credentials start with this, so they never collide with registered clients. */
export const credentialClientIdPrefix = 'gswc_';

export function isCredentialClientId(clientId: string): boolean {
  return clientId.startsWith(credentialClientIdPrefix);
}

/**
 * The secret is 256 random bits, so a fast hash is enough: nothing can be guessed, and a slow
 * password hash would only slow down every token request. Only the SHA-256 is stored.
 */
export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('base64url');
}

export function verifyClientSecret(presented: string, storedHash: string): boolean {
  const actual = Buffer.from(hashClientSecret(presented));
  const expected = Buffer.from(storedHash);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export interface NewCredential {
  row: ClientCredentialRow;
  /** Shown once, never stored. */
  secret: string;
}

export async function createCredential(
  db: Kysely<Database>,
  input: { userId: string; tenantId: number; name: string },
): Promise<NewCredential> {
  const secret = randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('client_credentials')
    .values({
      client_id: credentialClientIdPrefix + randomBytes(12).toString('hex'),
      secret_hash: hashClientSecret(secret),
      name: input.name,
      user_id: input.userId,
      tenant_id: input.tenantId,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { row, secret };
}

export async function findCredential(db: Kysely<Database>, clientId: string): Promise<ClientCredentialRow | undefined> {
  return db.selectFrom('client_credentials').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function listCredentials(db: Kysely<Database>, userId: string): Promise<ClientCredentialRow[]> {
  return db.selectFrom('client_credentials').selectAll().where('user_id', '=', userId).orderBy('created_at').orderBy('client_id').execute();
}

/** Deletes the caller's own credential; false if it does not exist or belongs to someone else. */
export async function deleteCredential(db: Kysely<Database>, userId: string, clientId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('client_credentials')
    .where('client_id', '=', clientId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** Records use, at most once per `minIntervalMs` per credential (the check and write are one statement). */
export async function touchCredential(db: Kysely<Database>, clientId: string, now: Date, minIntervalMs: number): Promise<void> {
  const cutoff = new Date(now.getTime() - minIntervalMs);
  await db
    .updateTable('client_credentials')
    .set({ last_used_at: now })
    .where('client_id', '=', clientId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', cutoff)]))
    .execute();
}
