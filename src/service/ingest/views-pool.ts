// One thread beside each ingestion thread for the image-search views (views-worker.ts), started
// with it; it runs under the ingestion thread's own memory limits, and ends with it when the pool
// stops that thread at a limit. Idle, it holds no process open.
import { isMainThread, resourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Mesh } from '../../geometry/mesh/mesh';
import { threadEntry } from '../thread-entry';
import renderViews, { type RenderedViews } from './views-worker';

let pool: Piscina | undefined;

function viewsPool(): Piscina {
  // Kept as long as the ingestion thread (its pool keeps threads an hour): a cold start loads
  // the renderer's modules, which would cost a model read alone after a pause what it gains.
  pool ??= new Piscina({
    ...threadEntry('views-worker', import.meta.url),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: 60 * 60 * 1000,
    ...(isMainThread ? {} : { resourceLimits }),
  });
  return pool;
}

/** Starts the thread ahead of the first model (an ingestion thread calls it as it starts). */
export function startViewsThread(): void {
  viewsPool();
}

/**
 * The model's views rendered on the thread beside this one; on this thread when that one cannot
 * run them (it could not start, or stopped), so a model never fails for want of it.
 */
export async function modelViewsBeside(mesh: Mesh): Promise<RenderedViews> {
  try {
    return (await viewsPool().run({ positions: mesh.positions, indices: mesh.indices, units: mesh.units })) as RenderedViews;
  } catch {
    return renderViews(mesh);
  }
}
