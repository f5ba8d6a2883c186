import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Users who sign in at another OIDC provider (OIDC_ISSUER): their issuer and subject name a local
 * user row, made on first sight, so that ownership, credentials and /v2/users/me work as for
 * users of the embedded provider. Such rows have no password (`password_hash` = '!external').
 */
export const externalIdentities: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('external_identities')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint('external_identities_pkey', ['issuer', 'subject'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('external_identities').execute();
  },
};
