import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAXIF, readTestFile, startIngestTestService, type IngestTestService } from './ingest-test-helpers';

// CAx-IF s1-c5-214 (CATIA): s1-c5-214.stp → TAIL, HEAD, MAINBODY, FOOT (sub-assemblies), each → two part files.
const DIR = 's1-c5-214';
const TOP = 's1-c5-214.stp';
const SUBS = ['TAIL.stp', 'HEAD.stp', 'MAINBODY.stp', 'FOOT.stp'];
const files = readdirSync(path.join(CAXIF, 'cax-if', DIR)).filter((f) => f.endsWith('.stp'));
const leaves = files.filter((f) => f !== TOP && !SUBS.includes(f));
const read = (f: string) => readTestFile('cax-if', DIR, f);

describe('assemblies through the API', () => {
  let svc: IngestTestService;
  beforeAll(async () => {
    svc = await startIngestTestService();
  });
  afterAll(() => svc?.stop());

  const links = (assemblyId: string) =>
    svc.db.selectFrom('assembly_links').select(['ref_name', 'part_id']).where('assembly_id', '=', assemblyId).orderBy('ref_name').execute();

  it('parts first (in a subfolder), then the assembly: finished, linked, nothing missing', async () => {
    expect(leaves).toHaveLength(8);
    const parts = await Promise.all([...leaves, ...SUBS].map(async (f) => svc.upload(`plane-a/parts/${f}`, read(f))));
    await svc.ingestion.idle();
    for (const id of parts) expect((await svc.model(id)).state).toMatch(/^finished/);
    const top = await svc.upload(`plane-a/${TOP}`, read(TOP));
    const m = await svc.settled(top);
    expect(m.state, m.stateReason ?? '').toBe('finished');
    expect(m.isAssembly).toBe(true);
    // eight part files, eleven placed: the tail turbine twice, the foot (two parts) twice
    expect(m.partCount).toBe(11);
    expect(m.missingParts ?? []).toEqual([]);
    // the assembly's mesh is its part files' meshes together, once per occurrence
    const times = (f: string) => (/^TAIL_TURBINE|^FOOT_/.test(f) ? 2 : 1);
    const partTriangles = await Promise.all(leaves.map(async (f, i) => (await svc.model(parts[i]!)).facts!.triangles * times(f)));
    expect(m.facts!.triangles).toBe(partTriangles.reduce((a, b) => a + b, 0));
    const l = await links(top);
    expect(l.map((x) => x.ref_name).sort()).toEqual([...SUBS].sort());
    expect(l.every((x) => x.part_id !== null)).toBe(true);

    type Node = {
      type: string;
      modelId: string | null;
      name: string;
      transform: number[];
      occurrences: number;
      transforms: number[][];
      children?: Node[];
    };
    const tree = (await (await svc.api(`/v2/models/${top}/assembly-tree`, { token: svc.token })).json()) as { children: Node[] };
    // Identical siblings are one node with their count (published `occurrences`) and every placement.
    expect(tree.children.map((c) => `${c.name}×${c.occurrences}`)).toEqual(['TAIL.stp×1', 'HEAD.stp×1', 'MAINBODY.stp×1', 'FOOT.stp×2']);
    expect(tree.children.every((c) => c.type === 'subAssembly' && c.modelId && c.children?.length)).toBe(true);
    expect(
      tree.children
        .find((c) => c.name === 'TAIL.stp')!
        .children!.map((c) => c.occurrences)
        .reduce((a, b) => a + b, 0),
    ).toBe(3);
    // Real placements (the file is in inches, transforms in millimetres): the two feet ±1.436 in apart in y.
    const feet = tree.children.find((c) => c.name === 'FOOT.stp')!;
    expect(feet.transforms.map((t) => t[13])).toEqual([expect.closeTo(36.48, 2), expect.closeTo(-36.48, 2)]);
    const all = (ns: Node[]): Node[] => ns.flatMap((n) => [n, ...all(n.children ?? [])]);
    for (const n of all(tree.children)) {
      expect(n.type).toMatch(/^(assemblyPart|subAssembly)$/);
      for (const t of n.transforms) {
        expect(t).toHaveLength(16);
        const [a, b, c, , d, e, f, , g, h, i] = t as [
          number,
          number,
          number,
          number,
          number,
          number,
          number,
          number,
          number,
          number,
          number,
        ];
        expect(a * (e * i - f * h) - d * (b * i - c * h) + g * (b * f - c * e)).toBeCloseTo(1, 9);
      }
    }
    expect(all(tree.children).some((n) => n.transform.some((v, k) => Math.abs(v - (k % 5 === 0 ? 1 : 0)) > 1e-6))).toBe(true);
    // The sub-assemblies themselves are complete assemblies too.
    const head = await svc.model(parts[leaves.length + 1]!);
    expect(head).toMatchObject({ state: 'finished', isAssembly: true, partCount: 2 });
  });

  it('assembly first: incomplete with missing parts, then parts arrive in any order and it is reprocessed to finished', async () => {
    const top = await svc.upload(`plane-b/${TOP}`, read(TOP));
    let m = await svc.settled(top);
    expect(m.state).toBe('failed-incomplete');
    expect(m.missingParts).toEqual(SUBS);
    expect(m.stateReason).toMatch(/missing: TAIL\.stp, HEAD\.stp, MAINBODY\.stp, FOOT\.stp/);

    // The head group, parts before their sub-assembly, into a subfolder.
    for (const f of ['HEAD_FRONT.stp', 'HEAD_BACK.stp', 'HEAD.stp']) await svc.upload(`plane-b/head/${f}`, read(f));
    await svc.ingestion.idle();
    m = await svc.model(top);
    expect(m.state, m.stateReason ?? '').toBe('finished-incomplete');
    expect(m.missingParts).toEqual(['TAIL.stp', 'MAINBODY.stp', 'FOOT.stp']);
    expect(m.partCount).toBe(2);

    // The rest: sub-assemblies before their parts, all at once.
    const rest = files.filter((f) => f !== TOP && !f.startsWith('HEAD'));
    await Promise.all(rest.map((f) => svc.upload(`plane-b/${f}`, read(f))));
    await svc.ingestion.idle();
    m = await svc.model(top);
    expect(m.state, m.stateReason ?? '').toBe('finished');
    expect(m.missingParts ?? []).toEqual([]);
    expect(m.partCount).toBe(11);
    expect((await links(top)).every((x) => x.part_id !== null)).toBe(true);
    // The same assembly in another folder is not completed by these parts (folder rule).
    const elsewhere = await svc.upload(`plane-c/${TOP}`, read(TOP));
    expect((await svc.settled(elsewhere)).state).toBe('failed-incomplete');
  });

  it('deleting a part reprocesses the assemblies that use it, directly or through a sub-assembly: they name it missing', async () => {
    const ids = new Map<string, string>();
    await Promise.all(files.map(async (f) => ids.set(f, await svc.upload(`plane-d/${f}`, read(f)))));
    await svc.ingestion.idle();
    const top = ids.get(TOP)!,
      head = ids.get('HEAD.stp')!;
    expect((await svc.model(top)).state).toBe('finished');
    const trianglesBefore = (await svc.model(top)).facts!.triangles;
    const del = (f: string) => svc.api(`/v2/models/${ids.get(f)}`, { method: 'DELETE', token: svc.token });

    // A leaf of the HEAD sub-assembly: HEAD.stp links it, the top assembly places it through HEAD.stp.
    expect((await del('HEAD_FRONT.stp')).status).toBe(204);
    await svc.ingestion.idle();
    let m = await svc.model(top);
    expect(m.state, m.stateReason ?? '').toBe('finished-incomplete');
    expect(m.missingParts).toEqual(['HEAD_FRONT.stp']);
    expect(m.stateReason).toMatch(/missing: HEAD_FRONT\.stp/);
    expect(m.facts!.triangles).toBeLessThan(trianglesBefore);
    let h = await svc.model(head);
    expect(h.state, h.stateReason ?? '').toBe('finished-incomplete');
    expect(h.missingParts).toEqual(['HEAD_FRONT.stp']);

    // The other HEAD part too: the sub-assembly has no geometry left, the top still has some.
    expect((await del('HEAD_BACK.stp')).status).toBe(204);
    await svc.ingestion.idle();
    h = await svc.model(head);
    expect(h.state, h.stateReason ?? '').toBe('failed-incomplete');
    expect(h.missingParts).toEqual(['HEAD_FRONT.stp', 'HEAD_BACK.stp']);
    m = await svc.model(top);
    expect(m.state, m.stateReason ?? '').toBe('finished-incomplete');
    expect(m.missingParts).toEqual(['HEAD_FRONT.stp', 'HEAD_BACK.stp']);

    // A directly linked sub-assembly: its link is cleared and it is named missing.
    expect((await del('TAIL.stp')).status).toBe(204);
    await svc.ingestion.idle();
    m = await svc.model(top);
    expect(m.state, m.stateReason ?? '').toBe('finished-incomplete');
    expect(m.missingParts).toEqual(['TAIL.stp', 'HEAD_FRONT.stp', 'HEAD_BACK.stp']);
    expect((await links(top)).find((l) => l.ref_name === 'TAIL.stp')?.part_id).toBeNull();
    // Assemblies elsewhere that do not use these files were left alone.
    const other = await svc.upload(`plane-e/${TOP}`, read(TOP));
    expect((await svc.settled(other)).missingParts).toEqual(SUBS);
    // Thirteen files ingested, then three rounds of reprocessing: more than the default limit on a busy machine.
  }, 180_000);

  it('a STEP file with several embedded products is an assembly with all parts present', async () => {
    const id = await svc.upload('embedded/as1-oc-214.stp', readTestFile('cax-if', 'as1-oc-214.stp'));
    const m = await svc.settled(id);
    expect(m.state, m.stateReason ?? '').toBe('finished');
    expect(m.isAssembly).toBe(true);
    expect(m.partCount).toBeGreaterThan(1);
    expect(m.missingParts ?? []).toEqual([]);
    const tree = (await (await svc.api(`/v2/models/${id}/assembly-tree`, { token: svc.token })).json()) as { children: unknown[] };
    expect(tree.children.length).toBeGreaterThan(0);
  });
});
