import { sql, type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Models, their uploads, metadata and assembly links (issue 3). The ingestion worker codes against
 * these columns: add, never rename or drop.
 */
export const models: Migration = {
  async up(db: Kysely<unknown>) {
    // Folder names are compared case-insensitively; the lower-case form is computed by the service
    // (String#toLowerCase) so that every comparison, in SQL or in code, uses the same folding.
    await db.schema.alterTable('folders').addColumn('name_lower', 'text').execute();
    await sql`update folders set name_lower = lower(name)`.execute(db);
    await db.schema
      .alterTable('folders')
      .alterColumn('name_lower', (c) => c.setNotNull())
      .execute();
    await db.schema.dropIndex('folders_sibling_name_unique').ifExists().execute();
    await db.schema
      .createIndex('folders_sibling_name_lower_unique')
      .on('folders')
      .expression(sql`tenant_id, coalesce(parent_folder_id, -1), name_lower`)
      .unique()
      .execute();
    await db.schema.createIndex('folders_tenant_parent').on('folders').columns(['tenant_id', 'parent_folder_id']).execute();

    await db.schema
      .createTable('models')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('folder_id', 'integer', (c) => c.notNull().references('folders.id').onDelete('restrict'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('file_path', 'text', (c) => c.notNull())
      .addColumn('file_path_lower', 'text', (c) => c.notNull())
      .addColumn('file_name', 'text', (c) => c.notNull())
      .addColumn('file_name_lower', 'text', (c) => c.notNull())
      .addColumn('file_type', 'text', (c) => c.notNull())
      .addColumn('is_assembly', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('state', 'text', (c) => c.notNull().defaultTo('incomplete-upload'))
      .addColumn('state_reason', 'text')
      .addColumn('size_bytes', 'bigint')
      .addColumn('blob_key', 'text')
      .addColumn('viewer_key', 'text')
      .addColumn('thumbnail_key', 'text')
      .addColumn('facts', 'jsonb')
      .addColumn('missing_parts', 'jsonb')
      .addColumn('part_count', 'integer')
      .addColumn('step_references', 'jsonb')
      .addColumn('assembly_tree', 'jsonb')
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('processed_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('models_tenant_file_path_unique').on('models').columns(['tenant_id', 'file_path_lower']).unique().execute();
    await db.schema.createIndex('models_tenant_file_name').on('models').columns(['tenant_id', 'file_name_lower']).execute();
    await db.schema.createIndex('models_tenant_folder').on('models').columns(['tenant_id', 'folder_id']).execute();
    await db.schema.createIndex('models_tenant_state').on('models').columns(['tenant_id', 'state']).execute();
    await db.schema.createIndex('models_tenant_created').on('models').columns(['tenant_id', 'created_at']).execute();
    await db.schema.createIndex('models_tenant_name').on('models').columns(['tenant_id', 'name']).execute();

    await db.schema
      .createTable('assembly_links')
      .addColumn('assembly_id', 'uuid', (c) => c.notNull().references('models.id').onDelete('cascade'))
      .addColumn('part_id', 'uuid', (c) => c.references('models.id').onDelete('set null'))
      .addColumn('ref_name', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('assembly_links_pkey', ['assembly_id', 'ref_name'])
      .execute();
    await db.schema.createIndex('assembly_links_part').on('assembly_links').column('part_id').execute();

    await db.schema
      .createTable('metadata_keys')
      .addColumn('id', 'serial', (c) => c.primaryKey())
      .addColumn('tenant_id', 'integer', (c) => c.notNull().references('tenants.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('name_lower', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema
      .createIndex('metadata_keys_tenant_name_unique')
      .on('metadata_keys')
      .columns(['tenant_id', 'name_lower'])
      .unique()
      .execute();

    await db.schema
      .createTable('model_metadata')
      .addColumn('model_id', 'uuid', (c) => c.notNull().references('models.id').onDelete('cascade'))
      .addColumn('metadata_key_id', 'integer', (c) => c.notNull().references('metadata_keys.id').onDelete('cascade'))
      .addColumn('value', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('model_metadata_pkey', ['model_id', 'metadata_key_id'])
      .execute();
    // metadata.<id>(eq(v)) filters look up by key and value.
    await db.schema.createIndex('model_metadata_key_value').on('model_metadata').columns(['metadata_key_id', 'value']).execute();

    await db.schema
      .createTable('uploads')
      .addColumn('model_id', 'uuid', (c) => c.primaryKey().references('models.id').onDelete('cascade'))
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('used_at', 'timestamptz')
      .execute();
  },

  async down(db: Kysely<unknown>) {
    for (const table of ['uploads', 'model_metadata', 'metadata_keys', 'assembly_links', 'models']) {
      await db.schema.dropTable(table).ifExists().execute();
    }
    await db.schema.dropIndex('folders_tenant_parent').ifExists().execute();
    await db.schema.dropIndex('folders_sibling_name_lower_unique').ifExists().execute();
    await db.schema.alterTable('folders').dropColumn('name_lower').execute();
    await db.schema
      .createIndex('folders_sibling_name_unique')
      .on('folders')
      .expression(sql`tenant_id, coalesce(parent_folder_id, 0), lower(name)`)
      .unique()
      .execute();
  },
};
