// Entry of the thread that renders a model's image-search views (views-pool.ts) while the
// ingestion thread that started it computes the search features, normals, viewer file and
// thumbnail: the two heaviest stages after reading side by side.
import { modelViews, type ModelViews } from '../../geometry/search/views/model-views';
import type { Mesh } from '../../geometry/mesh/mesh';

export interface RenderedViews {
  views: ModelViews;
  /** Wall time of the rendering on this thread (ms). */
  ms: number;
}

export default async function renderViews(mesh: Mesh): Promise<RenderedViews> {
  const t0 = performance.now();
  const views = await modelViews(mesh);
  return { views, ms: performance.now() - t0 };
}
