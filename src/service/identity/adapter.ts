import type { Kysely } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { findCredential, isCredentialClientId } from '../store/client-credentials';
import type { Database } from '../store/schema';

/** Scope a credential token may carry (the published API's client credentials). */
export const credentialClientScope = 'tenantApp roles';

/**
 * oidc-provider storage in the `oidc_payloads` table, one row per (model, id). The model
 * `Client` is special: user client credentials are read from `client_credentials`, so a
 * deleted credential stops authenticating at once.
 */
export function createAdapterClass(db: Kysely<Database>) {
  return class DatabaseAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const row = {
        payload: JSON.stringify(payload),
        grant_id: payload.grantId ?? null,
        user_code: payload.userCode ?? null,
        uid: payload.uid ?? null,
        expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
      };
      await db
        .insertInto('oidc_payloads')
        .values({ model: this.model, id, ...row })
        .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet(row))
        .execute();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (this.model === 'Client') return findCredentialClient(db, id);
      return this.findBy('id', id);
    }

    async findByUserCode(userCode: string) {
      return this.findBy('user_code', userCode);
    }

    async findByUid(uid: string) {
      return this.findBy('uid', uid);
    }

    async consume(id: string): Promise<void> {
      await db.updateTable('oidc_payloads').set({ consumed_at: new Date() }).where('model', '=', this.model).where('id', '=', id).execute();
    }

    async destroy(id: string): Promise<void> {
      await db.deleteFrom('oidc_payloads').where('model', '=', this.model).where('id', '=', id).execute();
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.deleteFrom('oidc_payloads').where('grant_id', '=', grantId).execute();
    }

    private async findBy(column: 'id' | 'user_code' | 'uid', value: string): Promise<AdapterPayload | undefined> {
      const row = await db
        .selectFrom('oidc_payloads')
        .select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.model)
        .where(column, '=', value)
        .executeTakeFirst();
      if (!row || (row.expires_at && row.expires_at.getTime() <= Date.now())) return undefined;
      return {
        ...row.payload,
        ...(row.consumed_at ? { consumed: Math.floor(row.consumed_at.getTime() / 1000) } : {}),
      };
    }
  };
}

async function findCredentialClient(db: Kysely<Database>, clientId: string): Promise<AdapterPayload | undefined> {
  if (!isCredentialClientId(clientId)) return undefined;
  const credential = await findCredential(db, clientId);
  if (!credential) return undefined;
  return {
    client_id: credential.client_id,
    // Only the hash is stored; compareClientSecret (see client-secret.ts) checks against it.
    client_secret: credential.secret_hash,
    client_name: credential.name,
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: credentialClientScope,
  };
}

/** Removes expired provider records; called at start and then hourly. */
export async function pruneExpiredPayloads(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('oidc_payloads').where('expires_at', '<', new Date()).execute();
}
