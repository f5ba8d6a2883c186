// A model moved to processing while the job queue is still starting (server.ts starts it beside
// the API): the lifecycle waits for the queue before its transaction, never inside it. On the
// embedded database that transaction holds the only connection and the queue's start needs it
// too; waiting inside it never ended (the reliability suite met it: an upload right after a restart).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from './database';
import { ModelLifecycle, type IngestJobSender } from './model-lifecycle';
import { createModels } from './models';
import { ensureTenant } from './users';

let dataDir: string;
let store: Store;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-lifecycle-'));
  store = await openStore({ dataDir });
});
afterAll(async () => {
  await store?.close();
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('ModelLifecycle with a queue still starting', () => {
  it('moves an uploaded model to processing and queues it once the queue has started', async () => {
    const { db } = store;
    const tenant = await ensureTenant(db, 'acme', 'Acme Inc.');
    const made = await createModels(db, {
      tenantId: tenant.id,
      ownerId: 'u',
      items: [{ filePath: 'Early/part.stl', name: 'part' }],
      createMissingFolders: true,
      uploadExpiresAt: new Date(Date.now() + 60_000),
    });
    if (!made.ok) throw new Error('no model');
    const id = made.models[0]!.row.id;

    // Shaped as server.ts's queue: its start needs the database, and sending waits for the start.
    let begin: () => void = () => {};
    const starting = new Promise<void>((resolve) => (begin = resolve)).then(async () => {
      await db.selectFrom('models').select('id').limit(1).execute();
    });
    const sent: string[] = [];
    const queue: IngestJobSender = {
      started: () => starting,
      async send(_trx, job) {
        await starting;
        sent.push(job.modelId);
      },
    };
    const lifecycle = new ModelLifecycle(db, queue);
    const uploading = lifecycle.uploaded(id, { blobKey: 'k', sizeBytes: 84 });
    await new Promise((r) => setTimeout(r, 200));
    begin();
    const outcome = await Promise.race([uploading, new Promise<'stuck'>((r) => setTimeout(() => r('stuck'), 10_000))]);
    expect(outcome, 'the transaction waited for a start that waited for it').not.toBe('stuck');
    expect(outcome).toMatchObject({ id, state: 'processing' });
    expect(sent).toEqual([id]);
  });
});
