import { type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * A small JPEG of each query image (at most 160 px), so a search answer can show the images it
 * searched with (the published API's `image`/`images`) without keeping the upload itself.
 */
export const imagePreview: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('images').addColumn('preview', 'bytea').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('images').dropColumn('preview').execute();
  },
};
