import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { httpError } from '../testing/fake-service';
import { isSettledState, StatePoller, type PollerOptions } from './poller';
import type { ModelRecord, Transport } from './transport';

/** A service whose model states the test sets by hand. */
class StateStub implements Transport {
  readonly models = new Map<string, ModelRecord>();
  readonly calls: { at: number; ids: string[] }[] = [];
  fail: Error | null = null;
  set(id: string, state: string, extra: Partial<ModelRecord> = {}) {
    this.models.set(id, { id, state, ...extra });
  }
  async listModelsById(ids: string[]): Promise<ModelRecord[]> {
    this.calls.push({ at: Date.now(), ids: [...ids] });
    if (this.fail) throw this.fail;
    return ids.flatMap((id) => (this.models.has(id) ? [{ ...this.models.get(id)! }] : []));
  }
  createModels(): never {
    throw new Error('not used');
  }
  deleteModel(): never {
    throw new Error('not used');
  }
  put(): never {
    throw new Error('not used');
  }
  storedPaths(): never {
    throw new Error('not used');
  }
  gaps(): number[] {
    return this.calls.slice(1).map((c, i) => c.at - this.calls[i]!.at);
  }
}

function setup(n: number, state = 'processing', options: Partial<PollerOptions> = {}) {
  const stub = new StateStub();
  const poller = new StatePoller(stub, options);
  const ids = Array.from({ length: n }, (_, i) => `m${i}`);
  for (const id of ids) stub.set(id, state);
  poller.track(ids.map((id) => ({ id, filePath: `T/${id}.stl`, role: 'part' })));
  return { stub, poller, ids };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('StatePoller', () => {
  it('asks for at most 100 ids per request and stays at or under one request a second', async () => {
    const { stub, poller } = setup(250);
    poller.start();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(stub.calls.slice(0, 3).map((c) => c.ids.length)).toEqual([100, 100, 50]);
    expect(new Set(stub.calls.slice(0, 3).flatMap((c) => c.ids)).size).toBe(250);
    expect(Math.min(...stub.gaps())).toBeGreaterThanOrEqual(1000);
    expect(stub.calls.length).toBeLessThanOrEqual(121);
    expect(poller.requestCount).toBe(stub.calls.length);
    expect(poller.getStats().maxIdsPerRequest).toBe(100);
  });

  it('keeps a second between requests as they really leave, when the transport waits before sending', async () => {
    // Like the app's transport, which reads its token first: some reads are slow, some are not.
    const waits = [300, 0, 450, 0, 0, 200, 0];
    const sent: number[] = [];
    class SlowToSend extends StateStub {
      override async listModelsById(ids: string[]): Promise<ModelRecord[]> {
        await new Promise((resolve) => setTimeout(resolve, waits[sent.length % waits.length]));
        sent.push(Date.now());
        return super.listModelsById(ids);
      }
    }
    const stub = new SlowToSend();
    stub.set('m0', 'processing');
    const poller = new StatePoller(stub);
    poller.track([{ id: 'm0', filePath: 'T/m0.stl', role: 'part' }]);
    poller.start();
    // Keep the interval at its base: every answer is a change.
    const unchange = setInterval(() => stub.set('m0', 'processing', { stateReason: String(Date.now()) }), 100);
    await vi.advanceTimersByTimeAsync(10_000);
    clearInterval(unchange);
    poller.stop();
    const gaps = sent.slice(1).map((t, i) => t - sent[i]!);
    expect(gaps.length).toBeGreaterThanOrEqual(5);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000);
  });

  it('backs off ×1.5 up to 10 s while nothing changes, and starts over on a change', async () => {
    const { stub, poller } = setup(1);
    poller.start();
    await vi.advanceTimersByTimeAsync(50_000);
    const expected = [1000, 1500, 2250, 3375, 5062.5, 7593.75, 10_000, 10_000];
    for (const [i, g] of stub.gaps().slice(0, 8).entries()) expect(Math.abs(g - expected[i]!)).toBeLessThanOrEqual(1);
    stub.set('m0', 'processing', { stateReason: 'meshing' });
    const before = stub.calls.length;
    await vi.advanceTimersByTimeAsync(12_000);
    const after = stub.calls.slice(before - 1).map((c) => c.at);
    // The request that saw the change is followed 1 s later.
    expect(after[2]! - after[1]!).toBe(1000);
  });

  it('treats unknown states as still working and stops once every model has settled', async () => {
    const { stub, poller } = setup(3, 'queued-in-some-new-way');
    const settled = vi.fn();
    poller.on('settled', settled);
    poller.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(settled).not.toHaveBeenCalled();
    expect(poller.getSnapshot().settled).toBe(false);
    stub.set('m0', 'finished');
    stub.set('m1', 'unsupported');
    stub.set('m2', 'failed-incomplete');
    const done = poller.whenSettled();
    await vi.advanceTimersByTimeAsync(15_000);
    await done;
    expect(settled).toHaveBeenCalledTimes(1);
    const count = stub.calls.length;
    await vi.advanceTimersByTimeAsync(600_000);
    expect(stub.calls.length).toBe(count);
    expect([...poller.getSnapshot().models.values()].map((m) => m.state)).toEqual(['finished', 'unsupported', 'failed-incomplete']);
    expect(isSettledState('processing')).toBe(false);
    expect(isSettledState('incomplete-upload')).toBe(false);
  });

  it('does not report settled while more uploads are expected, and polls new ones as they come', async () => {
    const { stub, poller } = setup(1, 'finished');
    poller.setExpectingMore(true);
    poller.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(poller.getSnapshot().settled).toBe(false);
    const calls = stub.calls.length;
    stub.set('n1', 'processing');
    poller.track([{ id: 'n1', filePath: 'T/n1.stl' }]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(stub.calls.length).toBe(calls + 1);
    expect(stub.calls.at(-1)!.ids).toEqual(['n1']);
    stub.set('n1', 'finished');
    poller.setExpectingMore(false);
    await vi.advanceTimersByTimeAsync(5000);
    expect(poller.getSnapshot().settled).toBe(true);
  });

  it('pauses while the tab is hidden and polls soon after resume', async () => {
    const { stub, poller } = setup(2);
    poller.start();
    await vi.advanceTimersByTimeAsync(30_000);
    poller.pause();
    const calls = stub.calls.length;
    await vi.advanceTimersByTimeAsync(120_000);
    expect(stub.calls.length).toBe(calls);
    expect(poller.getSnapshot().paused).toBe(true);
    poller.resume();
    await vi.advanceTimersByTimeAsync(1);
    expect(stub.calls.length).toBe(calls + 1);
    // Back near the starting interval (1 s × 1.5 after an unchanged answer), not at 10 s.
    await vi.advanceTimersByTimeAsync(1500);
    expect(stub.calls.length).toBe(calls + 2);
  });

  it('follows an assembly that is reprocessed because one of its parts arrived', async () => {
    const stub = new StateStub();
    const poller = new StatePoller(stub);
    stub.set('asm', 'processing');
    poller.track([{ id: 'asm', filePath: 'T/asm.stp', role: 'assembly', references: ['p.stl'] }]);
    poller.start();
    await vi.advanceTimersByTimeAsync(2000);
    stub.set('asm', 'finished-incomplete', { missingParts: ['p.stl'], isAssembly: true });
    await vi.advanceTimersByTimeAsync(5000);
    expect(poller.getSnapshot().models.get('asm')?.state).toBe('finished-incomplete');
    const seen: string[] = [];
    poller.on('change', (changes) => {
      for (const c of changes) if (c.id === 'asm') seen.push(c.state!);
    });

    // The part lands; the service reprocesses the assembly a little later.
    stub.set('p', 'processing');
    poller.track([{ id: 'p', filePath: 'T/sub/p.stl', role: 'part' }]);
    expect(poller.getSnapshot().models.get('asm')?.followUntil).toBe(Date.now() + 60_000);
    await vi.advanceTimersByTimeAsync(3000);
    stub.set('p', 'finished');
    await vi.advanceTimersByTimeAsync(4000);
    stub.set('asm', 'processing');
    await vi.advanceTimersByTimeAsync(4000);
    stub.set('asm', 'finished', { missingParts: [] });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen).toEqual(['processing', 'finished']);
    expect(poller.getSnapshot().models.get('asm')?.followUntil).toBeNull();
    const calls = stub.calls.length;
    await vi.advanceTimersByTimeAsync(300_000);
    expect(stub.calls.length).toBe(calls);
    expect(poller.getSnapshot().settled).toBe(true);
  });

  it('watches an incomplete assembly for a while after its part arrived, then gives up', async () => {
    const stub = new StateStub();
    const poller = new StatePoller(stub, { followWindowMs: 30_000 });
    stub.set('asm', 'failed-incomplete', { missingParts: ['q.stl'] });
    stub.set('other', 'finished-incomplete', { missingParts: ['unrelated.stl'] });
    poller.track([
      { id: 'asm', filePath: 'T/asm.stp', role: 'assembly', state: 'failed-incomplete' },
      { id: 'other', filePath: 'T/other.stp', role: 'assembly', state: 'finished-incomplete', missingParts: ['unrelated.stl'] },
    ]);
    poller.start();
    stub.set('q', 'processing');
    poller.track([{ id: 'q', filePath: 'T/q.stl', role: 'part' }]);
    await vi.advanceTimersByTimeAsync(2000);
    stub.set('q', 'finished');
    await vi.advanceTimersByTimeAsync(120_000);
    const asked = (id: string) => stub.calls.filter((c) => c.ids.includes(id)).map((c) => c.at);
    expect(asked('asm').length).toBeGreaterThan(2);
    // Watched until 30 s after the part settled, no longer.
    expect(Math.max(...asked('asm'))).toBeLessThanOrEqual(asked('q').at(-1)! + 30_000);
    expect(asked('other')).toEqual([]);
    expect(poller.getSnapshot().settled).toBe(true);
  });

  it('keeps going through failed requests and marks models the service no longer lists as gone', async () => {
    const { stub, poller } = setup(2);
    stub.fail = httpError(503, 'busy');
    poller.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(poller.getStats().errors).toBeGreaterThan(0);
    expect(poller.getStats().lastError).toBe('busy');
    stub.fail = null;
    stub.models.delete('m1');
    stub.set('m0', 'finished');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(poller.getSnapshot().models.get('m1')).toMatchObject({ gone: true, settled: true });
    expect(poller.getSnapshot().settled).toBe(true);
  });
});
