import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** Typed view of the tables created by the migrations in ./migrations. */
export interface Database {
  tenants: TenantsTable;
  users: UsersTable;
  oidc_payloads: OidcPayloadsTable;
  keys: KeysTable;
  client_credentials: ClientCredentialsTable;
  folders: FoldersTable;
  models: ModelsTable;
  assembly_links: AssemblyLinksTable;
  metadata_keys: MetadataKeysTable;
  model_metadata: ModelMetadataTable;
  uploads: UploadsTable;
  throttle: ThrottleTable;
  queue_workers: QueueWorkersTable;
  queue_leases: QueueLeasesTable;
  external_identities: ExternalIdentitiesTable;
  duplicate_reports: DuplicateReportsTable;
  duplicate_decisions: DuplicateDecisionsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** An endpoint an admin registered (migration 0017). */
export interface WebhooksTable {
  id: string;
  tenant_id: number;
  url: string;
  events: Json<string[]>;
  description: ColumnType<string, string | undefined, string>;
  /** `whsec_…`: signs deliveries, so it is kept readable; never answered after registration. */
  secret: string;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: string;
  created_at: CreatedAt;
}

/** One event sent (or being sent) to one endpoint (migration 0017): the delivery log. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  tenant_id: number;
  event: string;
  payload: Json<unknown>;
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  response_status: number | null;
  error: string | null;
  created_at: CreatedAt;
  delivered_at: Date | null;
}

/** Users of another OIDC provider (identity/external-issuer.ts). */
/** A duplicates report over a scope (migration 0014): its progress while it runs, its groups when ready. */
export interface DuplicateReportsTable {
  id: string;
  tenant_id: number;
  /** The folders asked for; null for the whole tenant. */
  folder_ids: NullableJson<number[]>;
  include_subfolders: boolean;
  threshold: number;
  status: string;
  phase: string;
  done: ColumnType<number, number | undefined, number>;
  total: ColumnType<number, number | undefined, number>;
  error: string | null;
  /** What the scope's searchable models were when the report read them (stale when it differs). */
  fingerprint: string | null;
  result: NullableJson<unknown>;
  /** Migration 0016: decided duplicates acted on from this report, model id → the action. */
  acted: ColumnType<Record<string, string>, string | undefined, string>;
  created_by: string;
  created_at: CreatedAt;
  finished_at: Date | null;
}

/** A designer's decision on one pair of models (migration 0014). */
export interface DuplicateDecisionsTable {
  id: Generated<number>;
  tenant_id: number;
  low_id: string;
  high_id: string;
  master_id: string;
  verdict: string;
  threshold: number;
  match_percentage: number | null;
  master_path: string;
  model_path: string;
  note: string | null;
  decided_by: string;
  decided_by_name: string;
  decided_at: DefaultNow;
}

export interface ExternalIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: string;
  created_at: CreatedAt;
}

/** Worker processes and the jobs they hold (ingest/worker-leases.ts). */
export interface QueueWorkersTable {
  id: string;
  host: string;
  pid: number;
  started_at: ColumnType<Date, Date | undefined, never>;
  seen_at: ColumnType<Date, Date | string | undefined, Date | string>;
}

export interface QueueLeasesTable {
  job_id: string;
  queue: string;
  worker_id: string;
  started_at: ColumnType<Date, Date | undefined, never>;
}

/** rate-limiter-flexible's counters (identity/throttle.ts); `expire` in epoch milliseconds. */
export interface ThrottleTable {
  key: string;
  points: number;
  expire: ColumnType<string | number | null, number | null, number | null>;
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
  /** `name.toLowerCase()`: siblings are unique by it (see foldNameCase in folders.ts). */
  name_lower: string;
  created_at: CreatedAt;
}

/** timestamptz with a database default. */
type DefaultNow = ColumnType<Date, Date | undefined, Date>;
/** jsonb that may be null: written as a JSON string (or null), read back parsed. */
type NullableJson<T> = ColumnType<T | null, string | null | undefined, string | null>;

export interface ModelsTable {
  /** crypto.randomUUID() from the service. */
  id: string;
  tenant_id: number;
  folder_id: number;
  name: string;
  file_path: string;
  file_path_lower: string;
  file_name: string;
  file_name_lower: string;
  /** The name's extension by the file-types rule (`extensionOf`: "bracket.prt.3" → "prt"). */
  file_type: string;
  is_assembly: ColumnType<boolean, boolean | undefined, boolean>;
  state: ColumnType<string, string | undefined, string>;
  state_reason: string | null;
  /** bigint: pg returns it as a string. */
  size_bytes: ColumnType<string | null, number | null | undefined, number | null>;
  /** Source file in the blob store. */
  blob_key: string | null;
  viewer_key: string | null;
  thumbnail_key: string | null;
  facts: NullableJson<unknown>;
  missing_parts: NullableJson<string[]>;
  part_count: number | null;
  step_references: NullableJson<string[]>;
  assembly_tree: NullableJson<unknown>;
  /** Bumped on every enqueue; a worker's result for an older version is dropped. */
  version: ColumnType<number, number | undefined, number>;
  created_at: CreatedAt;
  updated_at: DefaultNow;
  processed_at: Date | null;
  /** The user who created the record; null for records older than migration 0007. */
  owner_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The unit chosen at upload for a mesh that does not say its own (migration 0013). */
  declared_units: ColumnType<string | null, string | null | undefined, string | null>;
  /** The up axis a designer chose (file-types.ts); null: the format's. */
  up_axis: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AssemblyLinksTable {
  assembly_id: string;
  part_id: string | null;
  /** File name the assembly references. */
  ref_name: string;
}

export interface MetadataKeysTable {
  id: Generated<number>;
  tenant_id: number;
  name: string;
  name_lower: string;
  created_at: CreatedAt;
}

export interface ModelMetadataTable {
  model_id: string;
  metadata_key_id: number;
  value: string;
}

export interface UploadsTable {
  model_id: string;
  /** Random; sent back by the client as X-Upload-Token and covered by the signature. */
  nonce: string;
  expires_at: Date;
  /** Set when a PUT claims the address; single use. */
  used_at: Date | null;
}

export type Tenant = Selectable<TenantsTable>;
export type User = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;
export type ClientCredentialRow = Selectable<ClientCredentialsTable>;
export type FolderRow = Selectable<FoldersTable>;
export type ModelRow = Selectable<ModelsTable>;
export type MetadataKeyRow = Selectable<MetadataKeysTable>;
export type UploadRow = Selectable<UploadsTable>;
