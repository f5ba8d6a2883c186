// One thread beside each ingestion thread for the image-search views (views-worker.ts). Started on
// first use and ended when idle; it runs under the ingestion thread's own memory limits, and ends
// with it when the pool stops that thread at a limit.
import { isMainThread, resourceLimits } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { Mesh } from '../../geometry/mesh/mesh';
import { threadEntry } from '../thread-entry';
import renderViews, { type RenderedViews } from './views-worker';

let pool: Piscina | undefined;

/**
 * The model's views rendered on the thread beside this one; on this thread when that one cannot
 * run them (it could not start, or stopped), so a model never fails for want of it.
 */
export async function modelViewsBeside(mesh: Mesh): Promise<RenderedViews> {
  pool ??= new Piscina({
    ...threadEntry('views-worker', import.meta.url),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 10_000,
    ...(isMainThread ? {} : { resourceLimits }),
  });
  try {
    return (await pool.run({ positions: mesh.positions, indices: mesh.indices, units: mesh.units })) as RenderedViews;
  } catch {
    return renderViews(mesh);
  }
}
