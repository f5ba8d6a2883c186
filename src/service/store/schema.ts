import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Typed view of the tables created by the migrations in ./migrations. */
export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  oidc_payloads: OidcPayloadsTable;
  keys: KeysTable;
  client_credentials: ClientCredentialsTable;
  folders: FoldersTable;
}

type CreatedAt = ColumnType<Date, Date | undefined, never>;
/** jsonb: written as a JSON string, read back parsed. */
type Json<T> = ColumnType<T, string, string>;

export interface TenantsTable {
  id: Generated<number>;
  key: string;
  name: string;
  created_at: CreatedAt;
}

export interface UsersTable {
  id: string;
  tenant_id: number;
  email: string;
  name: string;
  password_hash: string;
  roles: string[];
  created_at: CreatedAt;
}

export interface OidcPayloadsTable {
  model: string;
  id: string;
  payload: Json<Record<string, unknown>>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
}

export interface KeysTable {
  id: string;
  value: Json<unknown>;
  created_at: CreatedAt;
}

export interface ClientCredentialsTable {
  client_id: string;
  secret_hash: string;
  name: string;
  user_id: string;
  tenant_id: number;
  created_at: CreatedAt;
  last_used_at: Date | null;
}

export interface FoldersTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  parent_folder_id: number | null;
  created_at: CreatedAt;
}

export type Tenant = Selectable<TenantsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ClientCredentialRow = Selectable<ClientCredentialsTable>;
export type FolderRow = Selectable<FoldersTable>;
