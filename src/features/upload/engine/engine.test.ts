import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeService } from '../testing/fake-service';
import { UploadEngine, type EngineState } from './engine';
import { chunk } from './planner';
import { dropped, stepText } from '../testing/test-files';
import type { CreatedModel } from './transport';

const plan = { targetFolder: 'Projects/Pump', maxFileBytes: 1 << 20 };

async function runUntil(cond: () => boolean, step = 100, max = 4 * 3_600_000): Promise<void> {
  for (let t = 0; !cond(); t += step) {
    if (t > max) throw new Error('timed out');
    await vi.advanceTimersByTimeAsync(step);
  }
}

const stage = (engine: UploadEngine) => engine.getSnapshot().stage;
const settled = (engine: UploadEngine) => () => ['done', 'needs-files'].includes(stage(engine));

function parts(n: number, folder = 'parts') {
  return Array.from({ length: n }, (_, i) => dropped(`/${folder}/p${i}.stl`, 1000 + i));
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('UploadEngine', () => {
  it('reviews, sends parts before assemblies, and follows processing to the end', async () => {
    const service = new FakeService({
      assemblies: { 'Projects/Pump/asm/top.stp': ['p1.stl', 'sub.stp'], 'Projects/Pump/asm/sub/sub.stp': ['p2.stl'] },
      finalState: (p) => (p.endsWith('.sldprt') ? 'unsupported' : 'finished'),
    });
    const files = [
      dropped('/asm/top.stp', 500, { text: stepText('p1.stl', 'sub.stp') }),
      dropped('/asm/sub/sub.stp', 500, { text: stepText('p2.stl') }),
      dropped('/asm/p1.stl'),
      dropped('/asm/sub/p2.stl'),
      dropped('/asm/old.sldprt'),
      dropped('/asm/notes.txt'),
    ];
    const engine = await UploadEngine.create(files, plan, service, { random: () => 0.5 });
    expect(engine.rows.map((r) => [r.name, r.role, r.problems.length])).toEqual([
      ['top.stp', 'assembly', 0],
      ['sub.stp', 'sub-assembly', 0],
      ['p1.stl', 'part', 0],
      ['p2.stl', 'part', 0],
      ['old.sldprt', 'part', 0],
      ['notes.txt', null, 1],
    ]);
    expect(stage(engine)).toBe('review');
    expect(service.calls.create).toHaveLength(0);

    engine.start();
    const final = await Promise.all([engine.whenSettled(), runUntil(settled(engine))]).then(([s]) => s);
    expect(final.stage).toBe('done');
    expect(service.calls.put).toEqual([
      'Projects/Pump/asm/p1.stl',
      'Projects/Pump/asm/sub/p2.stl',
      'Projects/Pump/asm/old.sldprt',
      'Projects/Pump/asm/sub/sub.stp',
      'Projects/Pump/asm/top.stp',
    ]);
    expect(final.summary).toMatchObject({ finished: 4, unsupported: 1, problem: 1, uploading: 0, processing: 0 });
    expect(final.files.find((f) => f.name === 'top.stp')).toMatchObject({ status: 'finished', serviceState: 'finished', missingParts: [] });
    expect(final.bytesSent).toBe(final.bytesTotal);
    expect(final.createRequests).toBe(1);
  });

  it('follows an assembly that finished incomplete and is reprocessed once its part is processed', async () => {
    const service = new FakeService({
      assemblies: { 'Projects/Pump/a/asm.stp': ['slow.stl'] },
      // Long enough for polling (≤ 10 s apart) to see each processing phase.
      processingMs: (p) => (p.endsWith('slow.stl') ? 30_000 : 12_000),
    });
    const engine = await UploadEngine.create(
      [dropped('a/asm.stp', 100, { text: stepText('slow.stl') }), dropped('a/slow.stl')],
      plan,
      service,
    );
    const states: string[] = [];
    engine.subscribe(() => {
      const s = engine.getSnapshot().files[0]!.serviceState;
      if (s && states.at(-1) !== s) states.push(s);
    });
    engine.start();
    await runUntil(settled(engine));
    expect(states).toEqual(['processing', 'finished-incomplete', 'processing', 'finished']);
    expect(engine.getSnapshot().files.map((f) => f.status)).toEqual(['finished', 'finished']);
  });

  it('cancels, pauses polling, and counts per state', async () => {
    const service = new FakeService({ putLatencyMs: 1000 });
    const engine = await UploadEngine.create(parts(20), plan, service);
    engine.start();
    await runUntil(() => engine.getSnapshot().summary.uploading > 0);
    expect(engine.cancel('Projects/Pump/parts/p0.stl')).toBe(true);
    engine.pause();
    expect(engine.getSnapshot().paused).toBe(true);
    await runUntil(() => engine.getSnapshot().summary.waiting + engine.getSnapshot().summary.uploading === 0);
    const polls = engine.getSnapshot().pollRequests;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(engine.getSnapshot().pollRequests).toBe(polls);
    engine.resume();
    await runUntil(settled(engine));
    expect(engine.getSnapshot().summary).toMatchObject({ cancelled: 1, finished: 19 });
    expect(service.byPath('Projects/Pump/parts/p0.stl')).toBeUndefined();
  });

  it('saves to JSON and, restored, sends only the files not yet sent when they are dropped again', async () => {
    const service = new FakeService({ putLatencyMs: 300 });
    const files = parts(300);
    const first = await UploadEngine.create(files, plan, service);
    first.start();
    await runUntil(() => first.getSnapshot().summary.processing + first.getSnapshot().summary.finished >= 120);
    const saved = JSON.parse(JSON.stringify(first.toJSON())) as EngineState;
    first.dispose();
    const sentBefore = new Set(saved.files.filter((f) => f.phase === 'uploaded').map((f) => f.filePath));
    expect(sentBefore.size).toBeGreaterThanOrEqual(120);
    expect(JSON.stringify(saved)).not.toMatch(/upload\/m\d+\?sig/); // no addresses stored
    const putsBefore = service.calls.put.length;

    const second = UploadEngine.restore(saved, service);
    expect(second.toJSON()).toEqual({ ...saved, savedAt: expect.any(Number) });
    second.start();
    await runUntil(settled(second));
    expect(stage(second)).toBe('needs-files');
    expect(second.getSnapshot().summary['needs-file']).toBe(300 - sentBefore.size);

    const changed = dropped('/parts/p5.stl', 999_999);
    const result = second.attachFiles([...files.filter((f) => !f.path.endsWith('/p5.stl')), changed, dropped('/parts/new.stl')]);
    expect(result.changed).toEqual(['Projects/Pump/parts/p5.stl']);
    expect(result.unknown).toEqual(['Projects/Pump/parts/new.stl']);
    expect(result.alreadyDone).toHaveLength(sentBefore.size - (sentBefore.has('Projects/Pump/parts/p5.stl') ? 1 : 0));
    expect(result.resumed.every((p) => !sentBefore.has(p))).toBe(true);

    await runUntil(settled(second));
    const putsAfter = service.calls.put.slice(putsBefore);
    expect(putsAfter.some((p) => sentBefore.has(p))).toBe(false);
    expect(new Set(putsAfter).size).toBe(putsAfter.length);
    // Every file stored once; records left by the interrupted uploads were replaced.
    const stored = [...service.models.values()];
    expect(stored.every((m) => m.stored)).toBe(true);
    expect(new Set(stored.map((m) => m.filePath)).size).toBe(stored.length);
    expect(second.getSnapshot().summary.finished).toBe(stored.length);
  });

  it('on restore, recognises a file whose upload finished just before the page went away', async () => {
    const service = new FakeService();
    const files = parts(3);
    const first = await UploadEngine.create(files, plan, service);
    first.start();
    await runUntil(settled(first));
    const saved = first.toJSON();
    // Saved while p1 was still uploading (its record is known, its outcome is not).
    const p1 = saved.files.find((f) => f.filePath.endsWith('p1.stl'))!;
    p1.phase = 'pending';
    p1.serviceState = null;
    const puts = service.calls.put.length;
    const second = UploadEngine.restore(saved, service);
    second.start();
    await runUntil(settled(second));
    expect(stage(second)).toBe('done');
    expect(service.calls.put.length).toBe(puts);
    expect(second.getSnapshot().files[1]).toMatchObject({ status: 'finished', modelId: p1.modelId });
  });

  it('tells subscribers at most every notifyIntervalMs, with a stable snapshot in between', async () => {
    const service = new FakeService({ putLatencyMs: 200 });
    const throttled = await UploadEngine.create(parts(50), plan, service);
    const eager = await UploadEngine.create(parts(50, 'other'), plan, service, { notifyIntervalMs: 0 });
    const calls = { throttled: 0, eager: 0 };
    throttled.subscribe(() => calls.throttled++);
    eager.subscribe(() => calls.eager++);
    const a = throttled.getSnapshot();
    expect(throttled.getSnapshot()).toBe(a);
    throttled.start();
    eager.start();
    await runUntil(() => settled(throttled)() && settled(eager)());
    expect(calls.throttled).toBeLessThan(calls.eager / 3);
    expect(calls.throttled).toBeLessThanOrEqual(Math.ceil(Date.now() / 100) + 1);
    expect(throttled.getSnapshot().summary.finished).toBe(50);
  });

  it('rejects saved state that is not one', () => {
    expect(() => UploadEngine.restore({ version: 2 }, new FakeService())).toThrow();
  });
});

describe('UploadEngine budgets (issue 4)', () => {
  const latency = (p: string) => 80 + ((Number(/p(\d+)/.exec(p)?.[1] ?? 0) * 53) % 150);

  /** What a plain script does: create 100, PUT them 6 at a time, next 100. */
  async function plainScript(service: FakeService, count: number): Promise<void> {
    const items = Array.from({ length: count }, (_, i) => ({ filePath: `Projects/Pump/parts/p${i}.stl`, name: `p${i}.stl` }));
    const blob = new Blob(['x']);
    for (const batch of chunk(items, 100)) {
      const created: CreatedModel[] = await service.createModels(batch, { createMissingFolders: true });
      let next = 0;
      const worker = async () => {
        while (next < created.length) {
          const c = created[next++]!;
          await service.put(c.uploadUrl, c.headers, blob, { signal: new AbortController().signal });
        }
      };
      await Promise.all(Array.from({ length: 6 }, worker));
    }
  }

  it('500 files: ≤ 1.15 × the plain script, 5 creation requests, ≤ 1 poll request a second', async () => {
    const plain = new FakeService({ putLatencyMs: latency, createLatencyMs: 300 });
    const t0 = Date.now();
    let plainDone = false;
    void plainScript(plain, 500).then(() => (plainDone = true));
    await runUntil(() => plainDone, 10);
    const plainMs = Date.now() - t0;

    const service = new FakeService({ putLatencyMs: latency, createLatencyMs: 300, processingMs: 3000 });
    const engine = await UploadEngine.create(parts(500), plan, service);
    const t1 = Date.now();
    engine.start();
    await runUntil(() => engine.getSnapshot().summary.processing + engine.getSnapshot().summary.finished === 500, 10);
    const engineMs = Date.now() - t1;
    await runUntil(settled(engine));
    const totalMs = Date.now() - t1;

    expect(engineMs).toBeLessThanOrEqual(plainMs * 1.15);
    expect(engine.getSnapshot().createRequests).toBe(5);
    expect(service.maxInFlightPuts).toBeLessThanOrEqual(6);
    const polls = service.calls.list;
    expect(polls.every((c) => c.ids.length <= 100)).toBe(true);
    expect(polls.length).toBeLessThanOrEqual(Math.ceil(totalMs / 1000));
    expect(polls.slice(1).every((c, i) => c.at - polls[i]!.at >= 1000)).toBe(true);
    expect(engine.getSnapshot().summary.finished).toBe(500);
  });
});
