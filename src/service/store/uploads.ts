import { randomBytes } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, UploadRow } from './schema';

type Db = Kysely<Database> | Transaction<Database>;

/** A nonce nobody can guess: the X-Upload-Token of a signed upload address. */
export function newUploadNonce(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * New upload addresses (nonce and expiry). A model that had one gets a new one and the old stops
 * working; an upload in progress keeps its claim, so the new address waits until it ends.
 */
export async function createUploads(db: Db, entries: { modelId: string; nonce: string; expiresAt: Date }[]): Promise<void> {
  if (entries.length === 0) return;
  await db
    .insertInto('uploads')
    .values(entries.map((e) => ({ model_id: e.modelId, nonce: e.nonce, expires_at: e.expiresAt })))
    .onConflict((oc) =>
      oc.column('model_id').doUpdateSet((eb) => ({ nonce: eb.ref('excluded.nonce'), expires_at: eb.ref('excluded.expires_at') })),
    )
    .execute();
}

export async function findUpload(db: Db, modelId: string): Promise<UploadRow | undefined> {
  return db.selectFrom('uploads').selectAll().where('model_id', '=', modelId).executeTakeFirst();
}

/**
 * Claims the single use of an upload address. False when it was used (or is being used) already.
 * A failed upload gives the claim back with `releaseUpload`, so the client may try again.
 */
export async function claimUpload(db: Db, modelId: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('uploads')
    .set({ used_at: now })
    .where('model_id', '=', modelId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseUpload(db: Db, modelId: string): Promise<void> {
  await db.updateTable('uploads').set({ used_at: null }).where('model_id', '=', modelId).execute();
}

/**
 * How long a claim lives without news from the process streaming its body. `used_at` is the
 * lease: renewed while bytes arrive, so only a process that died leaves a claim to go stale.
 */
export const UPLOAD_CLAIM_LEASE_MS = 60_000;

/** Renews the claim of an upload in progress (see {@link UPLOAD_CLAIM_LEASE_MS}). */
export async function renewUploadClaim(db: Db, modelId: string): Promise<void> {
  await db
    .updateTable('uploads')
    .set({ used_at: sql<Date>`now()` })
    .where('model_id', '=', modelId)
    .where('used_at', 'is not', null)
    .execute();
}

/**
 * Gives back the claims of uploads that never completed (the model is still waiting for its
 * file) and were last renewed before `before`: the process streaming them died, so the same
 * signed address may be used again until it expires. Returns how many were given back.
 */
export async function releaseAbandonedClaims(db: Db, before: Date): Promise<number> {
  const result = await db
    .updateTable('uploads')
    .set({ used_at: null })
    .where('used_at', '<', before)
    .where('model_id', 'in', (q) => q.selectFrom('models').select('id').where('state', '=', 'incomplete-upload'))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Uploads whose address is still valid and unused, among `modelIds` (for direct-to-S3 completion checks). */
export async function openUploads(db: Db, modelIds: readonly string[]): Promise<string[]> {
  if (modelIds.length === 0) return [];
  const rows = await db
    .selectFrom('uploads')
    .select('model_id')
    .where('model_id', 'in', [...modelIds])
    .where('used_at', 'is', null)
    .where('expires_at', '>', sql<Date>`now() - interval '1 minute'`)
    .execute();
  return rows.map((r) => r.model_id);
}
