import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeService } from './testing/fake-service';
import { dropped } from './testing/test-files';
import { memoryBatchStore } from './persistence';
import { UploadQueue } from './upload-queue';
import { UploadSession } from './upload-session';
import { getUploadStatus } from './upload-status';

async function runUntil(cond: () => boolean, step = 100, max = 600_000): Promise<void> {
  for (let t = 0; !cond(); t += step) {
    if (t > max) throw new Error('timed out');
    await vi.advanceTimersByTimeAsync(step);
  }
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  localStorage.clear();
});
afterEach(() => vi.useRealTimers());

function setup() {
  const service = new FakeService({ putLatencyMs: 2000 });
  const store = memoryBatchStore();
  const deps = { transport: service, store, saveEveryMs: 500, notifyIntervalMs: 0, window: null };
  const queue = new UploadQueue(new UploadSession(deps), deps);
  return { service, store, queue };
}

const stage = (s: UploadSession) => s.getState().engine?.getSnapshot().stage;

describe('UploadQueue', () => {
  it('keeps an empty batch last, queues a batch behind one being sent, and sends it once that one is sent', async () => {
    const { service, store, queue } = setup();
    const [first] = queue.getSessions();
    await first!.setTargetFolder('Pumps');
    await first!.addFiles([dropped('/a.stl', 1000), dropped('/b.stl', 1000)]);
    first!.start();
    expect(queue.getSessions()).toHaveLength(2);
    expect(stage(first!)).toBe('sending');

    const second = queue.getSessions()[1]!;
    await second.setTargetFolder('Valves');
    await second.addFiles([dropped('/c.stl', 1000)]);
    second.start();
    expect(second.getState().queued).toBe(true);
    expect(second.getState().phase).toBe('review');
    expect(queue.getSessions()).toHaveLength(3);

    // A third, queued behind the second: it waits for both.
    const third = queue.getSessions()[2]!;
    await third.setTargetFolder('Gears');
    await third.addFiles([dropped('/d.stl', 1000)]);
    third.start();
    expect(third.getState().queued).toBe(true);
    expect(service.byPath('Valves/c.stl')).toBeUndefined();

    await runUntil(() => stage(first!) !== 'sending');
    await runUntil(() => second.getState().phase === 'running');
    expect(third.getState().queued).toBe(true);
    await runUntil(() => third.getState().phase === 'running');
    await runUntil(() => stage(third) === 'done' && stage(second) === 'done' && stage(first!) === 'done');
    for (const path of ['Pumps/a.stl', 'Pumps/b.stl', 'Valves/c.stl', 'Gears/d.stl']) expect(service.byPath(path)?.state).toBe('finished');

    // The batch sent last owns the saved copy; the header status is the last batch's.
    await vi.advanceTimersByTimeAsync(1000);
    expect((store.value as { targetFolder: string }).targetFolder).toBe('Gears');
    expect(getUploadStatus().filesTotal).toBe(1);

    // Forgetting a finished batch before the last takes it off the page and leaves the saved copy alone.
    await first!.clear();
    expect(queue.getSessions()).not.toContain(first);
    expect(store.value).not.toBeNull();
  });

  it('a batch taken out of the queue goes back to its review and does not start', async () => {
    const { service, queue } = setup();
    const [first] = queue.getSessions();
    await first!.setTargetFolder('Pumps');
    await first!.addFiles([dropped('/a.stl', 1000)]);
    first!.start();
    const second = queue.getSessions()[1]!;
    await second.setTargetFolder('Valves');
    await second.addFiles([dropped('/c.stl', 1000)]);
    second.start();
    second.unqueue();
    await runUntil(() => stage(first!) === 'done');
    expect(second.getState().phase).toBe('review');
    expect(service.byPath('Valves/c.stl')).toBeUndefined();
    second.start();
    expect(second.getState().phase).toBe('running');
  });
});
