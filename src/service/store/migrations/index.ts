import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial';
import { models } from './0002-models';

/** All migrations, in order. Names sort lexically, which is the order Kysely applies them in. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-models': models,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
