// One thread beside each ingestion thread for the image-search views (views-worker.ts), started
// with it; it has a heap limit of its own as large as the ingestion thread's (a model may so use
// up to twice that; the pool's watch of the process's memory still bounds the whole), and ends
// with it when the pool stops that thread at a limit. Idle, it holds no process open.
import { isMainThread, resourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Mesh } from '../../geometry/mesh/mesh';
import { log } from '../log';
import { threadEntry } from '../thread-entry';
import renderViews, { type RenderedViews } from './views-worker';

let pool: Piscina | undefined;

function viewsPool(): Piscina {
  if (pool) return pool;
  // Kept as long as the ingestion thread (its pool keeps threads an hour): a cold start loads
  // the renderer's modules, which would cost a model read alone after a pause what it gains.
  pool = new Piscina({
    ...threadEntry('views-worker', import.meta.url),
    minThreads: 1,
    maxThreads: 1,
    idleTimeout: 60 * 60 * 1000,
    ...(isMainThread ? {} : { resourceLimits }),
  });
  // A thread that fails between tasks (it could not start) must not become an unhandled 'error'
  // that takes this ingestion thread down: models then render their views in place.
  pool.on('error', (error: unknown) => log.error({ err: error }, 'views thread failed'));
  return pool;
}

/** Starts the thread ahead of the first model (an ingestion thread calls it as it starts). */
export function startViewsThread(): void {
  viewsPool();
}

/**
 * The model's views rendered on the thread beside this one; on this thread when that one cannot
 * run them (it could not start, or was stopped), so a model never fails for want of it.
 */
export async function modelViewsBeside(mesh: Mesh): Promise<RenderedViews> {
  try {
    return (await viewsPool().run({ positions: mesh.positions, indices: mesh.indices, units: mesh.units })) as RenderedViews;
  } catch (error) {
    // Out of memory there would be out of memory here too, with the rest of the model held:
    // that model fails at its limit as before.
    if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') throw error;
    return renderViews(mesh);
  }
}
