import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeService, httpError } from '../testing/fake-service';
import { attributeCreateError, UploadSender, type SendItemInit, type SenderOptions } from './sender';

function items(n: number, size = 1000): SendItemInit[] {
  return Array.from({ length: n }, (_, i) => ({
    filePath: `T/f${i}.stl`,
    name: `f${i}.stl`,
    size,
    lastModified: 1,
    role: 'part' as const,
    // The sender goes by `size`; the bytes themselves do not matter here.
    blob: new Blob(['x']),
  }));
}

async function runUntil(cond: () => boolean, step = 50, max = 4 * 3_600_000): Promise<void> {
  for (let t = 0; !cond(); t += step) {
    if (t > max) throw new Error('timed out');
    await vi.advanceTimersByTimeAsync(step);
  }
}

function sender(service: FakeService, list: SendItemInit[], options: Partial<SenderOptions> = {}) {
  const s = new UploadSender(service, list, { random: () => 0.5, ...options });
  const phase = (i: number) => s.getSnapshot().items[i]!.phase;
  const count = (p: string) => s.getSnapshot().items.filter((x) => x.phase === p).length;
  return { s, phase, count, idle: () => s.getSnapshot().idle };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('UploadSender: batching and concurrency', () => {
  it('leaves the app connections: at most 3 PUTs in flight to its own origin, 6 elsewhere', async () => {
    const onApp = new FakeService({ putLatencyMs: 100 });
    const a = sender(onApp, items(30), { appOrigin: 'https://files.example' });
    a.s.start();
    await runUntil(a.idle);
    expect(a.count('uploaded')).toBe(30);
    expect(a.s.getStats().maxInFlight).toBe(3);

    const elsewhere = new FakeService({ putLatencyMs: 100 });
    const b = sender(elsewhere, items(30), { appOrigin: 'https://workbench.example' });
    b.s.start();
    await runUntil(b.idle);
    expect(b.s.getStats().maxInFlight).toBe(6);
  });

  it('sends 500 files with 5 creation requests of 100, never more than 6 PUTs in flight', async () => {
    const service = new FakeService({ putLatencyMs: (p) => 50 + ((Number(/\d+/.exec(p)?.[0]) * 37) % 200) });
    const createdWhenUploaded: number[] = [];
    const create = service.createModels.bind(service);
    const { s, count, idle } = sender(service, items(500));
    service.createModels = (models, o) => {
      createdWhenUploaded.push(count('uploaded'));
      return create(models, o);
    };
    let progressEvents = 0;
    s.on('progress', () => progressEvents++);
    s.start();
    await runUntil(idle);

    expect(count('uploaded')).toBe(500);
    expect(s.getStats().createRequests).toBe(5);
    expect(service.calls.create.map((c) => c.length)).toEqual([100, 100, 100, 100, 100]);
    expect(service.maxInFlightPuts).toBe(6);
    expect(s.getStats().maxInFlight).toBe(6);
    expect(service.calls.put).toHaveLength(500);
    expect(progressEvents).toBeGreaterThanOrEqual(500);
    // Just in time: the next batch is created only when the previous one is nearly sent.
    expect(createdWhenUploaded[0]).toBe(0);
    for (const [i, uploaded] of createdWhenUploaded.slice(1).entries()) expect(uploaded).toBeGreaterThanOrEqual((i + 1) * 100 - 12);
    // Every file sent exactly once, every record stored.
    expect([...service.models.values()].every((m) => m.stored)).toBe(true);
  });

  it('keeps the snapshot object stable between changes', async () => {
    const service = new FakeService();
    const { s, idle } = sender(service, items(3));
    const a = s.getSnapshot();
    expect(s.getSnapshot()).toBe(a);
    s.start();
    await runUntil(idle);
    const b = s.getSnapshot();
    expect(b).not.toBe(a);
    expect(s.getSnapshot()).toBe(b);
    expect(b.items.every((i) => i.loaded === 1000 && i.phase === 'uploaded')).toBe(true);
  });

  it('caps the first batch by the assumed speed when files are large', async () => {
    const service = new FakeService({ putLatencyMs: 1000 });
    const { s, idle } = sender(service, items(50, 100 << 20), { assumedBytesPerSecond: 10 << 20 });
    s.start();
    await runUntil(idle, 500);
    // 10 MB/s × 600 s = 6000 MB → 60 files of 100 MB would fit; 50 fit in one request.
    expect(service.calls.create[0]).toHaveLength(50);
    const service2 = new FakeService({ putLatencyMs: 1000 });
    const { s: s2, idle: idle2 } = sender(service2, items(50, 100 << 20), { assumedBytesPerSecond: 1 << 20 });
    s2.start();
    await runUntil(idle2, 500);
    // 1 MB/s × 600 s = 600 MB → 6 files in the first request.
    expect(service2.calls.create[0]).toHaveLength(6);
  });

  it('sends an assembly only after its parts are stored', async () => {
    const list = items(10);
    list.push({
      filePath: 'T/asm.stp',
      name: 'asm.stp',
      size: 10,
      lastModified: 1,
      role: 'assembly',
      dependsOn: list.map((i) => i.filePath),
      blob: new Blob(['x']),
    });
    const service = new FakeService({ putLatencyMs: 1000 });
    const started: Record<string, number> = {};
    const put = service.put.bind(service);
    service.put = (url, h, b, o) => {
      started[service.models.get(/upload\/(m\d+)/.exec(url)![1]!)!.filePath] = Date.now();
      return put(url, h, b, o);
    };
    const { s, idle } = sender(service, list);
    let lastPartDone = 0;
    s.on('uploaded', ({ filePath }) => {
      if (filePath !== 'T/asm.stp') lastPartDone = Date.now();
    });
    s.start();
    await runUntil(idle);
    expect(started['T/asm.stp']).toBeGreaterThanOrEqual(lastPartDone);
    expect(service.calls.create).toHaveLength(1);
  });
});

describe('UploadSender: retries', () => {
  it('retries network errors and 5xx with growing delays, honouring Retry-After', async () => {
    const starts: Record<string, number[]> = {};
    const service = new FakeService({
      putLatencyMs: 100,
      failPut: ({ filePath, n }) => {
        if (filePath === 'T/f3.stl' && n === 1) return httpError(503);
        if (filePath === 'T/f3.stl' && n === 2) return httpError(0, 'Failed to fetch');
        if (filePath === 'T/f5.stl' && n === 1) return httpError(429, 'Too many', 5000);
        return undefined;
      },
    });
    const put = service.put.bind(service);
    service.put = (url, h, b, o) => {
      const path = service.models.get(/upload\/(m\d+)/.exec(url)![1]!)!.filePath;
      (starts[path] ??= []).push(Date.now());
      return put(url, h, b, o);
    };
    const { s, idle, phase } = sender(service, items(8), { backoffBaseMs: 1000 });
    s.start();
    await runUntil(() => phase(3) === 'retry-wait');
    expect(s.getSnapshot().items[3]!.error).toMatchObject({ status: 503 });
    expect(s.getSnapshot().items[3]!.retryAt).toBeGreaterThan(Date.now());
    await runUntil(idle);
    expect(s.getSnapshot().items.every((i) => i.phase === 'uploaded')).toBe(true);
    expect(s.getSnapshot().items[3]!.attempts).toBe(3);
    const f3 = starts['T/f3.stl']!;
    const f5 = starts['T/f5.stl']!;
    // Attempt 1 fails at +100 ms; backoff 1 s × (0.5 + 0.5 × 0.5) = 750 ms; then 1.5 s.
    expect(f3[1]! - f3[0]!).toBe(100 + 750);
    expect(f3[2]! - f3[1]!).toBe(100 + 1500);
    expect(f5[1]! - f5[0]!).toBeGreaterThanOrEqual(100 + 5000);
  });

  it('gives up after maxPutAttempts and deletes the record nobody will fill', async () => {
    const service = new FakeService({
      failPut: ({ filePath }) => (filePath === 'T/f1.stl' ? httpError(500, 'Storage is down.') : undefined),
    });
    const { s, idle, phase } = sender(service, items(3), { maxPutAttempts: 3 });
    const failed: string[] = [];
    s.on('failed', ({ filePath }) => failed.push(filePath));
    s.start();
    await runUntil(idle);
    expect(phase(1)).toBe('failed');
    expect(s.getSnapshot().items[1]!.error).toEqual({ status: 500, code: 'internal_error', message: 'Storage is down.' });
    expect(service.calls.put.filter((p) => p === 'T/f1.stl')).toHaveLength(3);
    expect(service.byPath('T/f1.stl')).toBeUndefined();
    expect(failed).toEqual(['T/f1.stl']);
  });

  it('treats a 409 on a repeated PUT to the same address as stored', async () => {
    // The first PUT got through but its answer was lost.
    const service = new FakeService();
    const put = service.put.bind(service);
    let lost = false;
    service.put = async (url, h, b, o) => {
      await put(url, h, b, o);
      if (!lost) {
        lost = true;
        throw httpError(0, 'connection reset');
      }
    };
    const { s, idle, phase } = sender(service, items(1));
    s.start();
    await runUntil(idle);
    expect(phase(0)).toBe('uploaded');
    expect(service.models.size).toBe(1);
  });

  it('retries a creation request on 5xx and then carries on', async () => {
    const service = new FakeService({ failCreate: ({ n }) => (n <= 2 ? httpError(502) : undefined) });
    const { s, idle, count } = sender(service, items(120));
    s.start();
    await runUntil(idle);
    expect(count('uploaded')).toBe(120);
    expect(service.calls.create.map((c) => c.length)).toEqual([100, 100, 100, 20]);
  });
});

describe('UploadSender: expired addresses', () => {
  it('on a 403, deletes the record, creates it again and sends again', async () => {
    const service = new FakeService({
      failPut: ({ filePath, n }) => (filePath === 'T/f2.stl' && n === 1 ? httpError(403, 'expired') : undefined),
    });
    const { s, idle } = sender(service, items(5));
    const firstIds: string[] = [];
    s.on('created', ({ filePath, modelId }) => {
      if (filePath === 'T/f2.stl') firstIds.push(modelId);
    });
    s.start();
    await runUntil(idle);
    const f2 = s.getSnapshot().items[2]!;
    expect(f2.phase).toBe('uploaded');
    expect(f2.recreations).toBe(1);
    expect(firstIds).toHaveLength(2);
    expect(service.calls.delete).toEqual([firstIds[0]]);
    expect(service.calls.create.map((c) => c.map((m) => m.filePath))).toEqual([items(5).map((i) => i.filePath), ['T/f2.stl']]);
    expect(f2.modelId).toBe(firstIds[1]);
    expect(service.byPath('T/f2.stl')?.stored).toBe(true);
  });

  it('stops re-creating after maxRecreations', async () => {
    const service = new FakeService({
      failPut: ({ filePath }) => (filePath === 'T/f0.stl' ? httpError(403, 'Signature mismatch') : undefined),
    });
    const { s, idle, phase } = sender(service, items(2), { maxRecreations: 2 });
    s.start();
    await runUntil(idle);
    expect(phase(0)).toBe('failed');
    expect(s.getSnapshot().items[0]!.error?.message).toBe('Signature mismatch');
    expect(service.calls.put.filter((p) => p === 'T/f0.stl')).toHaveLength(3);
    expect(service.byPath('T/f0.stl')).toBeUndefined();
  });

  it('replaces addresses older than 12 minutes before using them, so none expires', async () => {
    const service = new FakeService({ putLatencyMs: 5 * 60_000 });
    const { s, idle, count } = sender(service, items(4), { concurrency: 1 });
    s.start();
    await runUntil(idle, 1000);
    expect(count('uploaded')).toBe(4);
    // f0 0–5 min, f1 5–10, f2 10–15 (address 10 min old), f3's would be 15 min old: replaced.
    expect(service.calls.put).toHaveLength(4);
    expect(service.calls.delete).toHaveLength(1);
    expect(service.calls.create.map((c) => c.length)).toEqual([4, 1]);
    expect(s.getSnapshot().items.every((i) => i.recreations === 0)).toBe(true);
  });
});

describe('UploadSender: cancel', () => {
  it('cancels one file while it uploads, and one still queued', async () => {
    const service = new FakeService({ putLatencyMs: 1000 });
    const { s, idle, phase } = sender(service, items(200));
    s.start();
    await runUntil(() => phase(1) === 'uploading');
    const id = s.getSnapshot().items[1]!.modelId!;
    expect(s.cancel('T/f1.stl')).toBe(true);
    expect(s.cancel('T/F150.STL')).toBe(true);
    expect(phase(1)).toBe('cancelled');
    await runUntil(idle);
    expect(s.cancel('T/f1.stl')).toBe(false);
    expect(service.calls.delete).toContain(id);
    expect(service.models.has(id)).toBe(false);
    expect(service.calls.create.flat().map((m) => m.filePath)).not.toContain('T/f150.stl');
    expect(s.getSnapshot().items.filter((i) => i.phase === 'uploaded')).toHaveLength(198);
    expect(service.models.size).toBe(198);
  });

  it('cancels a file whose record is being created: the record is deleted when it arrives', async () => {
    const service = new FakeService({ createLatencyMs: 500 });
    const { s, idle, phase } = sender(service, items(3));
    s.start();
    await vi.advanceTimersByTimeAsync(100);
    expect(phase(0)).toBe('creating');
    s.cancel('T/f0.stl');
    await runUntil(idle);
    expect(phase(0)).toBe('cancelled');
    expect(service.byPath('T/f0.stl')).toBeUndefined();
    expect(service.models.size).toBe(2);
  });

  it('cancels everything', async () => {
    const service = new FakeService({ putLatencyMs: 500 });
    const { s, idle, count } = sender(service, items(300));
    s.start();
    await runUntil(() => count('uploaded') >= 20);
    s.cancelAll();
    const uploaded = count('uploaded');
    await runUntil(idle);
    expect(count('cancelled')).toBe(300 - uploaded);
    expect(count('uploaded')).toBe(uploaded);
    expect(service.models.size).toBe(uploaded);
    expect([...service.models.values()].every((m) => m.stored)).toBe(true);
    expect(service.calls.create).toHaveLength(1);
    await expect(s.whenIdle()).resolves.toBeUndefined();
  });
});

describe('UploadSender: failed creation requests', () => {
  it('marks only the files the service names and sends the rest again', async () => {
    const service = new FakeService();
    await Promise.all([
      service.createModels([{ filePath: 'T/f7.stl', name: 'x' }], { createMissingFolders: true }),
      vi.advanceTimersByTimeAsync(100),
    ]);
    const { s, idle, phase, count } = sender(service, items(10));
    s.start();
    await runUntil(idle);
    expect(phase(7)).toBe('failed');
    expect(s.getSnapshot().items[7]!.error).toMatchObject({ status: 409, message: "models[7].filePath: 'T/f7.stl' already exists" });
    expect(count('uploaded')).toBe(9);
    expect(service.calls.create.slice(1).map((c) => c.length)).toEqual([10, 9]);
  });

  it('fails the whole batch when the message names no file, and goes on with the next', async () => {
    const service = new FakeService({ failCreate: ({ n }) => (n === 1 ? httpError(400, 'Folder “T” could not be created.') : undefined) });
    const { s, idle, count } = sender(service, items(150));
    s.start();
    await runUntil(idle);
    expect(count('failed')).toBe(100);
    expect(count('uploaded')).toBe(50);
    expect(s.getSnapshot().items[0]!.error?.message).toBe('Folder “T” could not be created.');
  });

  it('stops creating when the service refuses creation altogether (403)', async () => {
    const service = new FakeService({ failCreate: () => httpError(403, 'You need the editor role to upload.') });
    const { s, idle, count } = sender(service, items(250));
    s.start();
    await runUntil(idle);
    expect(count('failed')).toBe(250);
    expect(service.calls.create).toHaveLength(1);
  });

  it('reads indices and paths out of messages', () => {
    const paths = ['a/x.stl', 'a/y.stl', 'a/z.stl'];
    expect(attributeCreateError('models[2].filePath: too long', paths)).toEqual([2]);
    expect(attributeCreateError('models.1.name is required; models[9] ignored', paths)).toEqual([1]);
    expect(attributeCreateError("Duplicate filePath 'A/Y.STL'", paths)).toEqual([1]);
    expect(attributeCreateError('Something went wrong', paths)).toEqual([]);
  });
});
