import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './0001-initial';

/** All migrations, in order. Names sort lexically, which is the order Kysely applies them in. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
