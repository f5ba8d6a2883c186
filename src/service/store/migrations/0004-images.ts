import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Image search (issue 7): uploaded query images (kept only as their descriptor, for a day) and
 * each model's view descriptors written by ingestion.
 */
export const images: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('images')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      // Upload address: a nonce (X-Upload-Token), its expiry and its single use.
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('upload_expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('used_at', 'timestamptz')
      .addColumn('uploaded_at', 'timestamptz')
      .addColumn('format', 'text')
      .addColumn('width', 'integer')
      .addColumn('height', 'integer')
      .addColumn('size_bytes', 'integer')
      // The object's view descriptor (float32, little-endian) and the method that made it.
      .addColumn('descriptor', 'bytea')
      .addColumn('method', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('delete_after', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('images_tenant').on('images').column('tenant_id').execute();
    await db.schema.createIndex('images_delete_after').on('images').column('delete_after').execute();

    await db.schema
      .createTable('model_views')
      .addColumn('model_id', 'uuid', (c) => c.primaryKey().references('models.id').onDelete('cascade'))
      // The model version the views were computed from (a newer upload replaces them).
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('method', 'text', (c) => c.notNull())
      .addColumn('view_count', 'integer', (c) => c.notNull())
      .addColumn('dim', 'integer', (c) => c.notNull())
      .addColumn('data', 'bytea', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
  },

  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('model_views').ifExists().execute();
    await db.schema.dropTable('images').ifExists().execute();
  },
};
