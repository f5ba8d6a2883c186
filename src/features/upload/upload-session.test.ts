import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { engineStateSchema } from './engine/engine';
import { FakeService } from './testing/fake-service';
import { dropped } from './testing/test-files';
import { memoryBatchStore, throttledSaver } from './persistence';
import { UploadSession } from './upload-session';
import { getUploadStatus, hasSavedBatch } from './upload-status';

async function runUntil(cond: () => boolean, step = 100, max = 600_000): Promise<void> {
  for (let t = 0; !cond(); t += step) {
    if (t > max) throw new Error('timed out');
    await vi.advanceTimersByTimeAsync(step);
  }
}

const files = () => [dropped('/pump/a.stl', 1000), dropped('/pump/b.stl', 2000), dropped('/pump/c.stl', 3000)];

function session(service: FakeService, store = memoryBatchStore(), win: Window | null = null) {
  return new UploadSession({
    transport: service,
    store,
    saveEveryMs: 500,
    notifyIntervalMs: 0,
    window: win,
    reprocess: async () => undefined,
  });
}

const stageOf = (s: UploadSession) => s.getState().engine?.getSnapshot().stage;

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  localStorage.clear();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('throttledSaver', () => {
  it('saves at most once per interval, the latest state winning, and flushes on demand', async () => {
    const store = memoryBatchStore();
    let n = 0;
    const saver = throttledSaver(store, () => ({ n: ++n }), 1000);
    saver.request();
    saver.request();
    saver.request();
    await vi.advanceTimersByTimeAsync(0);
    expect(store.saves).toBe(1);
    saver.request();
    saver.request();
    await vi.advanceTimersByTimeAsync(999);
    expect(store.saves).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.saves).toBe(2);
    expect(store.value).toEqual({ n: 2 });
    await saver.flush();
    expect(store.value).toEqual({ n: 3 });
  });
});

describe('UploadSession persistence', () => {
  it('saves the batch (plan and model ids) while it runs and brings it back after a reload', async () => {
    const service = new FakeService();
    const store = memoryBatchStore();
    const first = session(service, store);
    await first.setTargetFolder('Projects');
    await first.addFiles(files());
    expect(first.getState().phase).toBe('review');
    expect(store.value).toBeNull(); // nothing is saved before the upload starts
    first.start();
    expect(hasSavedBatch()).toBe(true);
    await runUntil(() => stageOf(first) === 'done');
    await vi.advanceTimersByTimeAsync(1000);

    const saved = engineStateSchema.parse(store.value);
    expect(saved.targetFolder).toBe('Projects');
    expect(saved.files.map((f) => [f.filePath, f.phase, f.serviceState])).toEqual([
      ['Projects/pump/a.stl', 'uploaded', 'finished'],
      ['Projects/pump/b.stl', 'uploaded', 'finished'],
      ['Projects/pump/c.stl', 'uploaded', 'finished'],
    ]);
    expect(saved.files.every((f) => f.modelId && service.models.has(f.modelId))).toBe(true);
    first.getState().engine?.dispose();

    // "Reload": a new session on the same storage.
    const second = session(service, store);
    await second.restore();
    expect(second.getState().phase).toBe('running');
    const snap = second.getState().engine!.getSnapshot();
    expect(snap.files.map((f) => f.status)).toEqual(['finished', 'finished', 'finished']);
    expect(snap.files.every((f) => f.modelId)).toBe(true);

    await second.clear();
    expect(store.value).toBeNull();
    expect(hasSavedBatch()).toBe(false);
    expect(getUploadStatus().active).toBe(false);
  });

  it('after a reload mid-upload, keeps following stored files and sends only the unsent ones when the folder is dropped again', async () => {
    // c.stl takes long: the page is "reloaded" while it is still being sent.
    const service = new FakeService({ putLatencyMs: (p) => (p.endsWith('c.stl') ? 60_000 : 100), processingMs: 5_000 });
    const store = memoryBatchStore();
    const first = session(service, store);
    await first.setTargetFolder('Projects');
    await first.addFiles(files());
    first.start();
    await runUntil(
      () =>
        (first
          .getState()
          .engine?.getSnapshot()
          .files.filter((f) => f.status === 'processing').length ?? 0) === 2,
    );
    expect(getUploadStatus()).toMatchObject({ active: true, filesTotal: 3 });
    await vi.advanceTimersByTimeAsync(1000);
    first.getState().engine?.dispose();
    const createdBefore = service.calls.create.flat().length;

    const second = session(service, store);
    await second.restore();
    await vi.advanceTimersByTimeAsync(100);
    const statuses = () =>
      second
        .getState()
        .engine!.getSnapshot()
        .files.map((f) => f.status);
    expect(statuses()[2]).toBe('needs-file');
    // States of the stored files keep updating.
    await runUntil(() => statuses()[0] === 'finished' && statuses()[1] === 'finished');
    expect(stageOf(second)).toBe('needs-files');
    expect(getUploadStatus().attention).toBe(true);

    await second.addFiles(files());
    expect(second.getState().attach).toMatchObject({
      resumed: ['Projects/pump/c.stl'],
      alreadyDone: ['Projects/pump/a.stl', 'Projects/pump/b.stl'],
    });
    await runUntil(() => stageOf(second) === 'done', 1000);
    expect(statuses()).toEqual(['finished', 'finished', 'finished']);
    // Only c.stl was created again.
    expect(
      service.calls.create
        .flat()
        .slice(createdBefore)
        .map((m) => m.filePath),
    ).toEqual(['Projects/pump/c.stl']);
  });

  it('forgets a saved batch it cannot read', async () => {
    const store = memoryBatchStore({ version: 99 });
    const s = session(new FakeService(), store);
    await s.restore();
    expect(s.getState().phase).toBe('empty');
    expect(s.getState().error).toMatch(/could not be read/);
    expect(store.value).toBeNull();
  });

  it('asks before the page is left while files are being sent, and pauses polling while hidden', async () => {
    const service = new FakeService({ putLatencyMs: 10_000 });
    const s = session(service, memoryBatchStore(), window);
    await s.setTargetFolder('Projects');
    await s.addFiles(files());
    s.start();
    await vi.advanceTimersByTimeAsync(200);
    const leave = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(leave);
    expect(leave.defaultPrevented).toBe(true);

    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.getState().engine!.getSnapshot().paused).toBe(true);
    Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(0);
    expect(s.getState().engine!.getSnapshot().paused).toBe(false);

    await runUntil(() => stageOf(s) === 'done', 1000);
    const later = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(later);
    expect(later.defaultPrevented).toBe(false);
    await s.clear();
  });
});

describe('UploadSession start', () => {
  it('sends a dropped folder to the top level by its own name without a target', async () => {
    const service = new FakeService();
    const s = session(service);
    await s.addFiles(files());
    expect(s.getState()).toMatchObject({ phase: 'review', folderProblem: null });
    s.start();
    await runUntil(() => stageOf(s) === 'done', 1000);
    expect(service.calls.create.flat().map((m) => m.filePath)).toEqual(['pump/a.stl', 'pump/b.stl', 'pump/c.stl']);
    await s.clear();
  });

  it('sends the chosen unit with each mesh file that does not say its own', async () => {
    const service = new FakeService();
    const s = session(service);
    await s.addFiles([dropped('/pump/a.stl', 10), dropped('/pump/b.obj', 20), dropped('/pump/c.glb', 30)]);
    await s.setMeshUnits('in');
    s.start();
    await runUntil(() => stageOf(s) === 'done', 1000);
    const items = service.calls.create.flat();
    expect(Object.fromEntries(items.map((m) => [m.filePath, m.units]))).toEqual({
      'pump/a.stl': 'in',
      'pump/b.obj': 'in',
      'pump/c.glb': undefined,
    });
    await s.clear();
  });

  it('asks for a target for loose files, on the target field and not on every row', async () => {
    const service = new FakeService();
    const s = session(service);
    await s.addFiles([dropped('a.stl', 10), dropped('/pump/b.stl', 20)]);
    expect(s.getState()).toMatchObject({
      phase: 'review',
      folderProblem: 'Type the folder to put the file that is not in a dropped folder into.',
    });
    expect(
      s
        .getState()
        .engine?.getSnapshot()
        .files.filter((f) => f.status === 'problem'),
    ).toEqual([]);
    await s.setTargetFolder('Projects');
    s.start();
    await runUntil(() => stageOf(s) === 'done', 1000);
    expect(
      service.calls.create
        .flat()
        .map((m) => m.filePath)
        .sort(),
    ).toEqual(['Projects/a.stl', 'Projects/pump/b.stl']);
    await s.clear();
  });

  it('asked while the review is re-read (target folder changed by the same click), starts once the new review is ready', async () => {
    const service = new FakeService();
    const s = session(service);
    await s.addFiles(files());
    expect(s.getState()).toMatchObject({ phase: 'review', folderProblem: null });
    const replanned = s.setTargetFolder('Projects');
    expect(s.getState().phase).toBe('planning');
    s.start();
    await replanned;
    expect(s.getState()).toMatchObject({ phase: 'running', startError: null });
    await runUntil(() => stageOf(s) === 'done', 1000);
    expect(service.calls.create.flat().map((m) => m.filePath)).toEqual([
      'Projects/pump/a.stl',
      'Projects/pump/b.stl',
      'Projects/pump/c.stl',
    ]);
    await s.clear();
  });

  it('says why when it cannot start, also for a start wanted during a replan', async () => {
    const service = new FakeService();
    const s = session(service);
    await s.addFiles([dropped('a.stl', 10)]);
    s.start();
    expect(s.getState()).toMatchObject({
      phase: 'review',
      startError: 'Type the folder to put the file that is not in a dropped folder into.',
    });

    const replanned = s.setTargetFolder('Bad:name');
    s.start();
    await replanned;
    expect(s.getState().phase).toBe('review');
    expect(s.getState().startError).toBe(s.getState().folderProblem);
    expect(s.getState().startError).toBeTruthy();

    await s.setTargetFolder('Projects');
    expect(s.getState().startError).toBeNull(); // a new review clears it
    await s.addFiles([dropped('/pump/empty.stl', 0)]);
    s.start();
    expect(s.getState()).toMatchObject({ phase: 'review', startError: 'Remove the file with problems first, or cancel.' });
    expect(service.calls.create).toHaveLength(0);
  });
});

describe('UploadSession: paths already on the service', () => {
  it('skips files dropped at stored paths by default, keeps both on request, and sends only what it says', async () => {
    const service = new FakeService();
    const first = session(service);
    await first.setTargetFolder('Projects');
    await first.addFiles([dropped('/pump/a.stl', 1000)]);
    expect(first.getState().stored).toEqual([]);
    first.start();
    await runUntil(() => stageOf(first) === 'done');

    const second = session(service);
    await second.setTargetFolder('Projects');
    await second.addFiles(files());
    expect(second.getState().stored).toEqual(['Projects/pump/a.stl']);
    expect(
      second
        .getState()
        .engine!.getSnapshot()
        .files.map((f) => f.filePath),
    ).toEqual(['Projects/pump/b.stl', 'Projects/pump/c.stl']);

    await second.setWhenStored('keep-both');
    const kept = second.getState().engine!.getSnapshot().files;
    expect(kept.map((f) => f.filePath)).toEqual(['Projects/pump/a (2).stl', 'Projects/pump/b.stl', 'Projects/pump/c.stl']);
    expect(kept[0]!.notes.join(' ')).toContain('kept beside it as a (2).stl');

    // Review indexes point into the planned list: removing the second row removes b, not a.
    await second.setWhenStored('skip');
    await second.removeFile(0);
    await second.setWhenStored('keep-both');
    expect(
      second
        .getState()
        .engine!.getSnapshot()
        .files.map((f) => f.filePath),
    ).toEqual(['Projects/pump/a (2).stl', 'Projects/pump/c.stl']);

    second.start();
    await runUntil(() => stageOf(second) === 'done');
    expect(service.byPath('Projects/pump/a (2).stl')?.state).toBe('finished');
    expect(service.byPath('Projects/pump/b.stl')).toBeUndefined();
  });

  it('says so when every file is already stored, and sends nothing', async () => {
    const service = new FakeService();
    const first = session(service);
    await first.setTargetFolder('Projects');
    await first.addFiles(files());
    first.start();
    await runUntil(() => stageOf(first) === 'done');
    const creates = service.calls.create.length;

    const again = session(service);
    await again.setTargetFolder('Projects');
    await again.addFiles(files());
    expect(again.getState().stored).toHaveLength(3);
    again.start();
    expect(again.getState().phase).toBe('review');
    expect(again.getState().startError).toContain('Keep both');
    expect(service.calls.create.length).toBe(creates);
  });
});
