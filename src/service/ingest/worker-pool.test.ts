import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { box, toStlBinary } from '../../geometry/testing/fixtures';
import { createWorkerPool, WorkerLimitError, type WorkerPool } from './worker-pool';

describe('ingest worker pool', () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = createWorkerPool({ size: 2, maxOldGenerationSizeMb: 96, timeoutMs: 20_000 });
  });
  afterAll(() => pool.close());

  it('runs TypeScript geometry code in a worker thread', async () => {
    const stl = toStlBinary((await box()).mesh);
    const out = await pool.run({ kind: 'process', fileName: 'box.stl', bytes: stl });
    expect(out.outcome).toBe('geometry');
    if (out.outcome !== 'geometry') return;
    expect(out.facts.triangles).toBe(12);
    expect(out.facts.volume).toBeCloseTo(6000, 1);
    expect(out.cpuMs).toBeGreaterThan(0);
  });

  it('stops a task past its time limit, a thread past its heap limit, and a thread that exits; the pool keeps working', async () => {
    const limit = (p: Promise<unknown>) =>
      p.then(
        () => 'answered',
        (e: unknown) => (e instanceof WorkerLimitError ? e.limit : String(e)),
      );
    const [spin, alloc, exit] = await Promise.all([
      limit(pool.run({ kind: 'misbehave', how: 'spin' }, { timeoutMs: 1500 })),
      limit(pool.run({ kind: 'misbehave', how: 'allocate' })),
      limit(pool.run({ kind: 'misbehave', how: 'exit' })),
    ]);
    expect([spin, alloc, exit]).toEqual(['timeout', 'memory', 'crash']);
    const stl = toStlBinary((await box()).mesh);
    const again = await Promise.all([1, 2, 3].map(() => pool.run({ kind: 'process', fileName: 'box.stl', bytes: stl })));
    expect(again.map((o) => o.outcome)).toEqual(['geometry', 'geometry', 'geometry']);
  });
});

describe('ingest worker pool memory watch', () => {
  let pool: WorkerPool;
  beforeAll(() => {
    pool = createWorkerPool({ size: 2, memoryLimitMb: 256, timeoutMs: 20_000 });
  });
  afterAll(() => pool.close());
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (e: unknown) => (e instanceof WorkerLimitError ? `${e.limit}${e.shared ? ' (shared)' : ''}` : String(e)),
    );

  it('stops a thread whose typed arrays pass the limit, which the heap limit does not see', async () => {
    const before = process.memoryUsage.rss();
    expect(await outcome(pool.run({ kind: 'misbehave', how: 'allocate-native' }))).toBe('memory');
    // The watch reads every 50 ms; 16 MB arrays filled in that time stay well below another limit's worth.
    expect(process.memoryUsage.rss() - before).toBeLessThan(2 * 256 * 1024 * 1024);
  });

  it('stops every task running when the limit is passed, and says the others may not be to blame', async () => {
    const results = await Promise.all([
      outcome(pool.run({ kind: 'misbehave', how: 'spin' })),
      outcome(pool.run({ kind: 'misbehave', how: 'allocate-native' })),
    ]);
    expect(results).toEqual(['memory (shared)', 'memory (shared)']);
    const stl = toStlBinary((await box()).mesh);
    expect((await pool.run({ kind: 'process', fileName: 'box.stl', bytes: stl })).outcome).toBe('geometry');
  });
});
