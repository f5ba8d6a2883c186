import { type Kysely } from 'kysely';
import { type Migration } from 'kysely/migration';

/**
 * Brute-force counters (identity/throttle.ts): rate-limiter-flexible's PostgreSQL table, made
 * here so the schema has one owner. In the database, so every API process counts the same
 * failures and a restart forgets none.
 */
export const throttle: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('throttle')
      .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
      .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('expire', 'bigint')
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('throttle').execute();
  },
};
