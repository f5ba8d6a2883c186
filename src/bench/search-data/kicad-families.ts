// Families of real parts drawn by others, many of them: KiCad's 3D library (the Debian package
// the real set reads) grouped into size series by name — a model's name with its numbers taken
// out ("LQFP-#_#x#mm_P#.#mm") is its family. Libraries the real set or the reserved list hold are
// left out, so the figures are of parts no setting was chosen on unless the split says so: a
// family belongs to dev or frozen by a hash of its name (the same split every run, on every
// machine), and settings are chosen on dev alone.
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { kicadFiles, kicadPaths, kicadStepListing, REAL_SET_LIBRARIES } from './real-parts';
import type { SearchRecord, SplitName } from './split';

/** Families taken (both splits) and models per family, spread evenly over the sorted names. */
const FAMILIES = 90;
const MODELS_PER_FAMILY = 4;
/** A series needs this many models to be a family. */
const MIN_FAMILY = 3;

const familyKey = (model: string) => model.replace(/\d+(\.\d+)?/g, '#');

/** `k` items spread evenly over `xs` (all of them when fewer). */
function spread<T>(xs: readonly T[], k: number): T[] {
  if (xs.length <= k) return [...xs];
  return Array.from({ length: k }, (_, i) => xs[Math.floor((i * (xs.length - 1)) / (k - 1))]!);
}

/** FNV-1a of the family's name: which split it belongs to. */
export function splitOf(family: string): SplitName {
  let h = 0x811c9dc5;
  for (let i = 0; i < family.length; i++) h = Math.imul(h ^ family.charCodeAt(i), 0x01000193) >>> 0;
  return h % 2 ? 'frozen' : 'dev';
}

/** The families of one split as search records: each family's first model is its original, the others its variants. */
export function buildKicadFamilies(split: SplitName): SearchRecord[] {
  const listing = kicadStepListing();
  if (!listing) return [];
  // One series across libraries: a pin socket at 1.27 and at 2.00 mm pitch is one family.
  const byFamily = new Map<string, [library: string, model: string][]>();
  for (const library of [...listing.keys()].sort()) {
    if (REAL_SET_LIBRARIES.has(library)) continue;
    for (const m of listing.get(library)!.sort())
      (byFamily.get(familyKey(m)) ?? byFamily.set(familyKey(m), []).get(familyKey(m))!).push([library, m]);
  }
  const families = [...byFamily.entries()].filter(([, ms]) => ms.length >= MIN_FAMILY).sort(([a], [b]) => (a < b ? -1 : 1));
  const chosen = spread(families, FAMILIES)
    .filter(([family]) => splitOf(family) === split)
    .map(([family, models]) => [family, spread(models, MODELS_PER_FAMILY)] as const);
  const dir = kicadFiles(chosen.flatMap(([, models]) => models.flatMap(([library, model]) => kicadPaths(library, [model], ['step']))));
  if (!dir) return [];
  return chosen.flatMap(([family, models]) =>
    models.map(([library, model], k): SearchRecord => {
      const id = `${family}:${model}`;
      return {
        id,
        design: `kicad-${family}`,
        partId: id,
        kind: k === 0 ? 'original' : 'variant',
        how: `${model}.step`,
        chiral: false,
        source: 'KiCad families',
        file: { name: `${model}.step`, bytes: new Uint8Array(readFileSync(join(dir, kicadPaths(library, [model], ['step'])[0]!))) },
      };
    }),
  );
}
