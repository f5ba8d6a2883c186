// Folder duplicates over HTTP (really started service) against a brute-force computation of the
// definition: every pair of the folder's searchable models whose part-to-part score reaches the
// threshold is linked — the exact stored result where there is one (a pair whose descriptor score
// is 97 or more always has one after the call), else the descriptor score below 98 — mirror
// images and scaled copies never, and clusters are the connected groups.
// The folder is generated around real parts' search features (stored through the store's own
// writer) so scores fall on both sides of every threshold tried, and some models carry another
// part's geometry under a near-duplicate descriptor, so exact rescoring changes links.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { folderDuplicatesResponseSchema } from '../../contract/matches';
import { analyseShape } from '../../geometry/search/descriptors/analysis';
import { buildPart } from '../../geometry/testing/benchmark-dataset';
import { descriptorDistance, scoreFromDistance } from '../../geometry/search/descriptors/global-descriptor';
import { prng } from '../../geometry/search/descriptors/sampling';
import { meshFacts, weld } from '../../geometry/mesh/mesh-facts';
import { computeSearchFeatures, encodePrepared, type SearchFeatures } from '../../geometry/search/search-features';
import { createFolder } from '../store/folders';
import { startTestService, type TestService, type TestUser } from '../testing/start-test-service';
import { storeSearchFeatures } from './features-store';
import { decodeFloat4Array, decodeVector } from './binary-vectors';
import { PAIR_VERSION } from './pairs';
import { provisionalScore } from './part-to-part-rule';
import { vectorIndexAvailable } from './vector-index';

describe('folder duplicates', () => {
  let t: TestService;
  let user: TestUser;
  let token: string;
  let folderId: number;
  const expectedInFolder: string[] = [];

  beforeAll(async () => {
    t = await startTestService();
    user = await t.createUser({ tenantKey: 'dup-brute', roles: ['viewer'] });
    token = await t.tokenFor(user);
    const stranger = await t.createUser({ tenantKey: 'dup-stranger', roles: ['viewer'] });
    const folder = await createFolder(t.db, { tenantId: user.tenantId, name: 'parts' });
    const elsewhere = await createFolder(t.db, { tenantId: user.tenantId, name: 'elsewhere' });
    const strangers = await createFolder(t.db, { tenantId: stranger.tenantId, name: 'parts' });
    folderId = folder.id;

    // Real features of three parts; a small analysis blob keeps exact rescoring quick.
    const bases: SearchFeatures[] = [];
    for (const family of ['bracket', 'flange', 'plate'] as const) {
      const mesh = await buildPart(family, 0);
      const welded = weld(mesh);
      const f = computeSearchFeatures(mesh, { facts: meshFacts(mesh, { welded }), welded });
      f.prepared = encodePrepared(analyseShape(mesh, { samples: 512 }));
      bases.push(f);
    }
    const rand = prng(606);
    const gauss = () => Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    const noisy = (v: Float32Array, sd: number) => Float32Array.from(v, (x) => x + sd * gauss());
    let n = 0;
    const add = async (o: { tenantId: number; folderId: number; global: Float32Array; blobOf: SearchFeatures; state?: string }) => {
      const id = crypto.randomUUID();
      const name = `part-${String(n++).padStart(3, '0')}.stl`;
      await t.db
        .insertInto('models')
        .values({
          id,
          tenant_id: o.tenantId,
          folder_id: o.folderId,
          name,
          file_path: name,
          file_path_lower: name,
          file_name: name,
          file_name_lower: name,
          file_type: 'stl',
          state: o.state ?? 'finished',
        })
        .execute();
      await storeSearchFeatures(t.db, { id, tenant_id: o.tenantId }, { ...o.blobOf, global: o.global });
      return id;
    };
    // Designs around each base (descriptor distance between designs ~0.6–7: scores from ~99 to
    // under 90), each stored as 1–4 copies with duplicate-level noise.
    for (let d = 0; d < 14; d++) {
      const base = bases[d % bases.length]!;
      const design = noisy(base.global, 0.05 + 0.55 * rand());
      const copies = 1 + Math.floor(rand() * 4);
      for (let c = 0; c < copies; c++) {
        // Every fourth design has a copy whose geometry is another part's: its descriptor says
        // duplicate, exact rescoring says otherwise.
        const blobOf = d % 4 === 1 && c === copies - 1 ? bases[(d + 1) % bases.length]! : base;
        expectedInFolder.push(
          await add({ tenantId: user.tenantId, folderId: folder.id, global: noisy(design, 0.004 + 0.03 * rand()), blobOf }),
        );
      }
    }
    // Near-identical models that must stay out: another folder, another tenant, not yet searchable.
    const copyOf = bases[0]!.global;
    await add({ tenantId: user.tenantId, folderId: elsewhere.id, global: copyOf, blobOf: bases[0]! });
    await add({ tenantId: stranger.tenantId, folderId: strangers.id, global: copyOf, blobOf: bases[0]! });
    await add({ tenantId: user.tenantId, folderId: folder.id, global: copyOf, blobOf: bases[0]!, state: 'processing' });
  }, 300_000);
  afterAll(() => t?.stop());

  const duplicates = async (query: string) => {
    const res = await t.api(`/v2/folders/${folderId}/duplicates${query}`, { token });
    const body = (await res.json()) as unknown;
    expect(res.status, JSON.stringify(body)).toBe(200);
    return folderDuplicatesResponseSchema.parse(body);
  };

  /** The definition, pair by pair: vectors read as real[] (not the endpoint's binary read). */
  async function bruteForce(threshold: number) {
    const { rows } = await sql<{ id: string; v: number[] }>`
      select m.id, f.global_desc as v from models m join search_features f on f.model_id = m.id
      where m.tenant_id = ${user.tenantId} and m.folder_id = ${folderId} and m.state in ('finished', 'finished-incomplete')`.execute(t.db);
    const { rows: pairs } = await sql<{ model_id: string; other_id: string; score: number; relation: string | null }>`
      select model_id, other_id, score, relation from search_pairs where tenant_id = ${user.tenantId} and kind = 'part-to-part' and version = ${PAIR_VERSION}`.execute(
      t.db,
    );
    const exact = new Map(pairs.map((p) => [`${p.model_id}:${p.other_id}`, { score: Number(p.score), related: p.relation !== null }]));
    const vectors = rows.map((r) => ({ id: r.id, v: Float32Array.from(r.v) }));
    const parent = new Map(vectors.map((r) => [r.id, r.id]));
    const find = (x: string): string => (parent.get(x) === x ? x : find(parent.get(x)!));
    const links: string[] = [];
    let exactUsed = 0;
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        const [a, b] = [vectors[i]!, vectors[j]!].sort((x, y) => (x.id < y.id ? -1 : 1));
        const descriptor = scoreFromDistance(descriptorDistance(a!.v, b!.v));
        const s = exact.get(`${a!.id}:${b!.id}`);
        if (descriptor >= 97 && descriptor >= threshold)
          expect(s, 'the exact result of a pair near the duplicate line is stored').toBeDefined();
        if (s) exactUsed++;
        if (s?.related) continue;
        const score = s ? s.score : provisionalScore(descriptor);
        if (score < threshold) continue;
        links.push(`${a!.id}:${b!.id}:${Math.min(100, Number(score.toFixed(3)))}`);
        parent.set(find(a!.id), find(b!.id));
      }
    }
    const groups = new Map<string, string[]>();
    for (const { id } of vectors) groups.set(find(id), [...(groups.get(find(id)) ?? []), id]);
    const clusters = [...groups.values()].filter((g) => g.length > 1).map((g) => g.sort().join(','));
    return { modelCount: vectors.length, clusters: clusters.sort(), links: links.sort(), exactUsed };
  }

  it('clusters and links equal the brute-force definition at every threshold', async () => {
    const seen = new Set<number>();
    for (const threshold of [98, 99, 97, 95, 90, 80]) {
      const r = await duplicates(`?threshold=${threshold}`);
      const want = await bruteForce(threshold);
      expect(r.threshold).toBe(threshold);
      expect(r.modelCount).toBe(expectedInFolder.length);
      expect(want.modelCount).toBe(expectedInFolder.length);
      const got = {
        clusters: r.clusters
          .map((c) =>
            c.models
              .map((m) => m.id)
              .sort()
              .join(','),
          )
          .sort(),
        links: r.clusters.flatMap((c) => c.links.map((l) => [l.a, l.b].sort().join(':') + `:${l.matchPercentage}`)).sort(),
      };
      expect(got.clusters, `clusters at ${threshold}`).toEqual(want.clusters);
      expect(got.links, `links at ${threshold}`).toEqual(want.links);
      // Clusters biggest first; every member a model of this folder.
      const sizes = r.clusters.map((c) => c.models.length);
      expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
      for (const c of r.clusters) for (const m of c.models) expect(m.folderId).toBe(folderId);
      seen.add(want.clusters.length);
      expect(want.exactUsed).toBeGreaterThan(0);
    }
    // The generated folder really exercises the thresholds: the grouping changes across them.
    expect(seen.size).toBeGreaterThan(2);
  }, 300_000);

  it('exact rescoring keeps a look-alike with other geometry out of its design’s cluster', async () => {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from search_pairs where tenant_id = ${user.tenantId} and kind = 'part-to-part' and score < 98`.execute(
      t.db,
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
  });

  it('the binary vector reads (real[], and pgvector where the database has it) decode to the stored values, bit for bit', async () => {
    const pgvector = await vectorIndexAvailable(t.db, () => {});
    const { rows } = await sql<{ d: number[]; a: Uint8Array; v: Uint8Array | null }>`
      select global_desc as d, array_send(global_desc) as a, ${pgvector ? sql`vector_send(global_vec)` : sql`null`} as v from search_features where tenant_id = ${user.tenantId} limit 5`.execute(
      t.db,
    );
    expect(rows).toHaveLength(5);
    for (const r of rows) {
      const want = Float32Array.from(r.d);
      expect(want.length).toBeGreaterThan(100);
      expect(decodeFloat4Array(r.a)).toEqual(want);
      if (pgvector) expect(decodeVector(r.v!)).toEqual(want);
    }
  });

  it('another tenant’s folder is not found', async () => {
    const stranger = await t.viewerToken('dup-stranger');
    expect((await t.api(`/v2/folders/${folderId}/duplicates`, { token: stranger })).status).toBe(404);
    expect((await t.api(`/v2/folders/${folderId}/duplicates?threshold=101`, { token })).status).toBe(400);
  });
});
