import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/** Identity, keys, credentials and the first folder table (issue 2). */
export const initial: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tenants')
      .addColumn('id', 'serial', (c) => c.primaryKey())
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('roles', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    // Sign-in asks for an email only, so it must name one user across all tenants.
    await db.schema
      .createIndex('users_email_unique')
      .on('users')
      .expression(sql`lower(email)`)
      .unique()
      .execute();
    await db.schema.createIndex('users_tenant_id').on('users').column('tenant_id').execute();

    await db.schema
      .createTable('oidc_payloads')
      .addColumn('model', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('payload', 'jsonb', (c) => c.notNull())
      .addColumn('grant_id', 'text')
      .addColumn('user_code', 'text')
      .addColumn('uid', 'text')
      .addColumn('expires_at', 'timestamptz')
      .addColumn('consumed_at', 'timestamptz')
      .addPrimaryKeyConstraint('oidc_payloads_pkey', ['model', 'id'])
      .execute();
    await db.schema.createIndex('oidc_payloads_grant_id').on('oidc_payloads').column('grant_id').execute();
    await db.schema.createIndex('oidc_payloads_user_code').on('oidc_payloads').column('user_code').execute();
    await db.schema.createIndex('oidc_payloads_uid').on('oidc_payloads').column('uid').execute();
    await db.schema.createIndex('oidc_payloads_expires_at').on('oidc_payloads').column('expires_at').execute();

    await db.schema
      .createTable('keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('value', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();

    await db.schema
      .createTable('client_credentials')
      .addColumn('client_id', 'text', (c) => c.primaryKey())
      .addColumn('secret_hash', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('last_used_at', 'timestamptz')
      .execute();
    // Several credentials per user, told apart by name.
    await db.schema
      .createIndex('client_credentials_user_name_unique')
      .on('client_credentials')
      .columns(['user_id', 'name'])
      .unique()
      .execute();

    await db.schema
      .createTable('folders')
      .addColumn('id', 'serial', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('parent_folder_id', 'integer', (c) => c.references('folders.id').onDelete('restrict'))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    // Sibling names are unique case-insensitively; roots share parent 0.
    await db.schema
      .createIndex('folders_sibling_name_unique')
      .on('folders')
      .expression(sql`tenant_id, coalesce(parent_folder_id, 0), lower(name)`)
      .unique()
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['folders', 'client_credentials', 'keys', 'oidc_payloads', 'users', 'tenants']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
  },
};
