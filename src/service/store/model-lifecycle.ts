// The one writer of a model's `state`, `state_reason` and `version` (creation aside, which sets
// the first state in models.ts). Every move into `processing` bumps the version once and sends
// the ingestion job for exactly that version in the same transaction: a model never shows
// `processing` without a job to end it, and a job whose version was overtaken does nothing.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database, ModelRow } from './schema';
import { findModel, findModelById } from './models';
import { isUuid } from './users';
import type { WebhookEvent } from '../../contract/webhooks';
import { modelSummary, type EventSink } from '../webhooks/events';
import { log } from '../log';

type Db = Kysely<Database> | Transaction<Database>;

export type IngestReason = 'uploaded' | 'reprocess' | 'part-arrived' | 'upgrade';

/** What an ingestion job carries: the model and the version it was asked for. */
export interface IngestJob {
  modelId: string;
  version: number;
  reason: IngestReason;
}

/** Where ingestion jobs go (ingest/job-queue.ts); the store does not know the queue. */
export interface IngestJobSender {
  /** Sends the job inside the transaction that moved the model to `processing`. */
  send(trx: Transaction<Database>, job: IngestJob): Promise<void>;
  /** After that transaction committed: a worker in this process may look at once. */
  committed?(): void;
  /**
   * Resolves once `send` can run without waiting (a queue still starting beside the API). Awaited
   * before the transaction that sends, never inside it: on the embedded database that transaction
   * holds the only connection, and the queue's start needs that connection too.
   */
  started?(): Promise<void>;
}

/** What ingestion learned about a model. Fields left out keep their value. */
export interface ProcessingOutcome {
  state: 'finished' | 'finished-incomplete' | 'failed' | 'failed-incomplete' | 'unsupported';
  /** Words a designer understands, for failed, unsupported and *-incomplete. */
  stateReason?: string | null;
  isAssembly?: boolean;
  viewerKey?: string | null;
  thumbnailKey?: string | null;
  facts?: unknown;
  missingParts?: string[] | null;
  partCount?: number | null;
  stepReferences?: string[] | null;
  /** `{type: 'assemblyTree', modelId, children}` (contract models.ts). */
  assemblyTree?: unknown;
}

export interface ReprocessOptions {
  /** Only a model of this tenant (API requests). */
  tenantId?: number;
  reason?: IngestReason;
  /** Only while the model is still at this version and not processing (upgrades racing each other). */
  ifVersion?: number;
}

function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

/** The webhook event a settled state announces. */
const settledEvent: Record<ProcessingOutcome['state'], WebhookEvent> = {
  finished: 'model.finished',
  'finished-incomplete': 'model.finished',
  failed: 'model.failed',
  'failed-incomplete': 'model.failed',
  unsupported: 'model.unsupported',
};

export class ModelLifecycle {
  /**
   * Without a queue (tests of the upload flow) models move to `processing` and stay there. Every
   * settled state and every deletion is announced to `events` (webhooks) in the same transaction.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly queue: IngestJobSender | undefined,
    private readonly events?: EventSink,
  ) {}

  /**
   * The same writer without announcements: a recipe upgrade reprocesses the whole library, and a
   * script told "finished" for every model again would have nothing to act on.
   */
  quiet(): ModelLifecycle {
    return new ModelLifecycle(this.db, this.queue);
  }

  /** Models deleted (model-deletion.ts): `model.deleted` for each. */
  async deleted(rows: readonly ModelRow[]): Promise<void> {
    for (const row of rows) await this.announce(this.db, row, 'model.deleted');
  }

  /**
   * Records the event's deliveries. Inside the caller's transaction a failure fails that
   * transaction (it is retried as a whole); after a committed change it is logged, not thrown: what
   * caused the event has happened, and a webhook must not fail it.
   */
  private async announce(db: Db, row: ModelRow, event: WebhookEvent): Promise<void> {
    if (!this.events) return;
    const emit = () => this.events!.emit(db, row.tenant_id, event, { model: modelSummary(row) });
    if (db.isTransaction) return emit();
    await emit().catch((error: unknown) => log.warn({ err: error, modelId: row.id, event }, 'webhook event could not be recorded'));
  }

  /** The file is stored: `processing`, its job sent. */
  uploaded(modelId: string, file: { blobKey: string; sizeBytes: number }): Promise<ModelRow> {
    return this.transition(this.db, async (trx) => {
      const row = await trx
        .updateTable('models')
        .set({ blob_key: file.blobKey, size_bytes: file.sizeBytes, ...this.processing() })
        .where('id', '=', modelId)
        .returningAll()
        .executeTakeFirstOrThrow();
      await this.queue?.send(trx, { modelId, version: row.version, reason: 'uploaded' });
      return row;
    });
  }

  /**
   * Processing again (reprocess request, a part that arrived or left, a recipe upgrade). Undefined
   * when the model is unknown (or another tenant's, or no longer at `ifVersion`); `{noFile: true}`
   * when it has no file yet. Joins `trx` when given.
   */
  reprocess(
    modelId: string,
    options: ReprocessOptions = {},
    trx?: Transaction<Database>,
  ): Promise<ModelRow | { noFile: true } | undefined> {
    if (!isUuid(modelId)) return Promise.resolve(undefined);
    return this.transition(trx ?? this.db, async (t) => {
      let query = t.updateTable('models').set(this.processing()).where('id', '=', modelId).where('blob_key', 'is not', null);
      if (options.tenantId !== undefined) query = query.where('tenant_id', '=', options.tenantId);
      if (options.ifVersion !== undefined) query = query.where('version', '=', options.ifVersion).where('state', '<>', 'processing');
      const row = await query.returningAll().executeTakeFirst();
      if (row) {
        await this.queue?.send(t, { modelId, version: row.version, reason: options.reason ?? 'reprocess' });
        return row;
      }
      if (options.ifVersion !== undefined) return undefined;
      const exists = options.tenantId === undefined ? await findModelById(t, modelId) : await findModel(t, options.tenantId, modelId);
      return exists ? { noFile: true as const } : undefined;
    });
  }

  /**
   * Writes ingestion's result, but only if the model is still at `version` (a newer upload or
   * reprocess makes this result stale: false is returned and nothing is written).
   */
  async complete(modelId: string, version: number, outcome: ProcessingOutcome, trx?: Transaction<Database>): Promise<boolean> {
    const json = (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value));
    const set = {
      state: outcome.state,
      state_reason: outcome.stateReason ?? null,
      is_assembly: outcome.isAssembly,
      viewer_key: outcome.viewerKey,
      thumbnail_key: outcome.thumbnailKey,
      facts: json(outcome.facts),
      missing_parts: json(outcome.missingParts),
      part_count: outcome.partCount,
      step_references: json(outcome.stepReferences),
      assembly_tree: json(outcome.assemblyTree),
      processed_at: sql<Date>`now()`,
      updated_at: sql<Date>`now()`,
    };
    const defined = Object.fromEntries(Object.entries(set).filter(([, v]) => v !== undefined)) as typeof set;
    const db = trx ?? this.db;
    const row = await db
      .updateTable('models')
      .set(defined)
      .where('id', '=', modelId)
      .where('version', '=', version)
      .returningAll()
      .executeTakeFirst();
    if (row) await this.announce(db, row, settledEvent[outcome.state]);
    return row !== undefined;
  }

  /** A direct upload broke a rule found only once it arrived (its size): `failed` with the reason. */
  async failUpload(modelId: string, reason: string): Promise<ModelRow | undefined> {
    const row = await this.db
      .updateTable('models')
      .set({ state: 'failed', state_reason: reason, updated_at: sql<Date>`now()` })
      .where('id', '=', modelId)
      .returningAll()
      .executeTakeFirst();
    if (row) await this.announce(this.db, row, 'model.failed');
    return row;
  }

  /** The job for `version` used up its retries: `failed`, unless a newer version was asked for meanwhile. */
  async giveUp(modelId: string, version: number, reason: string): Promise<boolean> {
    const row = await this.db
      .updateTable('models')
      .set({ state: 'failed', state_reason: reason, processed_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where('id', '=', modelId)
      .where('version', '=', version)
      .where('state', '=', 'processing')
      .returningAll()
      .executeTakeFirst();
    if (row) await this.announce(this.db, row, 'model.failed');
    return row !== undefined;
  }

  /** Awaited before a transaction that calls `reprocess` with it (see IngestJobSender.started). */
  async started(): Promise<void> {
    await this.queue?.started?.();
  }

  private async transition<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    if (!db.isTransaction) await this.started();
    const result = await inTransaction(db, work);
    if (!db.isTransaction) this.queue?.committed?.();
    return result;
  }

  private processing() {
    return { state: 'processing', state_reason: null, version: sql<number>`version + 1`, updated_at: sql<Date>`now()` } as const;
  }
}
