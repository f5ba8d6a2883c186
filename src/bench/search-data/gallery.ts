// The models a picture benchmark searches (bench:image per source, bench:sketch): a set's
// originals, variants and details, read as ingestion reads them, in millimetres.
import { importFile } from '../../geometry/import/registry';
import { isImportError } from '../../geometry/import/importer';
import { convertUnits, type Mesh } from '../../geometry/mesh/mesh';
import { buildRealParts } from './real-parts';
import { buildSplit, type SearchRecord } from './split';

export interface GalleryModel {
  record: SearchRecord;
  mesh: Mesh;
}

/** A record's file read as ingestion reads it, in millimetres; undefined when it cannot be read. */
export async function meshOf(r: SearchRecord): Promise<Mesh | undefined> {
  const imported = await importFile(r.file.name, r.file.bytes);
  if (isImportError(imported)) return undefined;
  const mesh: Mesh = { positions: imported.positions, indices: imported.indices, units: imported.units };
  return mesh.units && mesh.units !== 'unknown' && mesh.units !== 'mm' ? convertUnits(mesh, 'mm') : mesh;
}

/** The gallery of `set` (dev, frozen or real); `perArchetype` designs of each synthetic archetype. */
export async function gallery(set: string, perArchetype: number): Promise<GalleryModel[]> {
  const records = (set === 'real' ? await buildRealParts() : await buildSplit(set as 'dev' | 'frozen', { perArchetype })).filter((r) =>
    ['original', 'variant', 'detail'].includes(r.kind),
  );
  const out: GalleryModel[] = [];
  for (const record of records) {
    const mesh = await meshOf(record);
    if (mesh) out.push({ record, mesh });
  }
  return out;
}
