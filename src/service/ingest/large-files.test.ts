// Mesh files too large to hold, through the API: read from disk a piece at a time and simplified
// for the features and pictures (large-mesh.ts). The service runs with small thresholds so that
// files of a few megabytes take that path; bench:ingest-large sends the gigabyte ones.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { similarityMatchesResponseSchema } from '../../contract/matches';
import { toObj, toPly } from '../../geometry/testing/fixtures';
import { ringMesh, writeBigStl } from '../testing/big-stl';
import { derivedFiles, startIngestTestService, type IngestTestService } from './ingest-test-helpers';

const DETAIL = 20_000;

describe('large mesh files (read a piece at a time, simplified for features and pictures)', () => {
  let svc: IngestTestService;
  let dir: string;
  beforeAll(async () => {
    // Files read whole are refused above 50,000 triangles here: one of more that finishes was read a piece at a time.
    svc = await startIngestTestService({ largeMeshBytes: 1024 * 1024, detailTriangles: DETAIL, maxTriangles: 50_000 });
    dir = await mkdtemp(path.join(os.tmpdir(), 'large-files-'));
  });
  afterAll(async () => {
    await svc?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a binary and a text STL of one ring end finished with every triangle counted, a bounded viewer file, and find each other', async () => {
    const binary = path.join(dir, 'ring.stl');
    const ascii = path.join(dir, 'ring-ascii.stl');
    const written = await writeBigStl(binary, 120_000);
    const writtenAscii = await writeBigStl(ascii, 30_000, { ascii: true });
    expect(written.bytes).toBeGreaterThan(1024 * 1024);
    expect(writtenAscii.bytes).toBeGreaterThan(1024 * 1024);
    const ids = [
      await svc.upload('large/ring.stl', await readFile(binary)),
      await svc.upload('large/ring-ascii.stl', await readFile(ascii)),
    ];

    for (const [id, triangles] of [
      [ids[0]!, written.triangles],
      [ids[1]!, writtenAscii.triangles],
    ] as const) {
      const m = await svc.settled(id);
      expect(m.state, m.stateReason ?? '').toBe('finished');
      const f = m.facts!;
      expect(f.triangles).toBe(triangles);
      expect(f.simplified!.triangles).toBeLessThan(DETAIL * 1.3);
      expect(f.simplified!.tolerance).toBeGreaterThan(0);
      // the ring's outer radius: 48 + 12 × (1 + 0.12 sin 5v) cos v at its widest, about 60.8
      expect(f.boundingBox.max[0]).toBeGreaterThan(60);
      expect(f.boundingBox.max[0]).toBeLessThan(61.5);
      expect(f.volume).not.toBeNull();
      const { glb } = await derivedFiles(svc, m);
      // a viewer file of the simplified copy, not of the file: well under the file's size
      expect(glb.length).toBeLessThan(written.bytes / 4);
    }

    const res = await svc.api(`/v2/models/${ids[0]}/part-to-part-matches?threshold=0`, { token: svc.token });
    expect(res.status).toBe(200);
    const matches = similarityMatchesResponseSchema.parse(await res.json()).matches;
    const other = matches.find((m) => m.matchedModel.id === ids[1]);
    expect(other?.matchPercentage, JSON.stringify(matches.map((m) => [m.matchedModel.name, m.matchPercentage]))).toBeGreaterThanOrEqual(98);
  });

  it('OBJ and PLY are read a piece at a time too, and find the STL of the same ring', async () => {
    const mesh = ringMesh(60_000);
    const stl = path.join(dir, 'ring-60k.stl');
    await writeBigStl(stl, 60_000);
    const ids = [
      await svc.upload('large/ring-60k.stl', await readFile(stl)),
      await svc.upload('large/ring.obj', toObj(mesh)),
      await svc.upload('large/ring.ply', toPly(mesh)),
    ];
    for (const id of ids) {
      const m = await svc.settled(id);
      expect(m.state, `${m.fileName}: ${m.stateReason ?? ''}`).toBe('finished');
      expect(m.facts!.triangles, m.fileName).toBe(mesh.indices.length / 3);
      expect(m.facts!.simplified, m.fileName).toBeDefined();
    }
    const res = await svc.api(`/v2/models/${ids[0]}/part-to-part-matches?threshold=0`, { token: svc.token });
    const matches = similarityMatchesResponseSchema.parse(await res.json()).matches;
    for (const id of ids.slice(1)) expect(matches.find((m) => m.matchedModel.id === id)?.matchPercentage).toBeGreaterThanOrEqual(98);
  });

  it('a large STL cut short ends failed with the sentence of a whole-file read', async () => {
    const file = path.join(dir, 'cut.stl');
    await writeBigStl(file, 60_000);
    const bytes = await readFile(file);
    const id = await svc.upload('large/cut.stl', bytes.subarray(0, bytes.length - 1000));
    const m = await svc.settled(id);
    expect(m.state).toBe('failed');
    expect(m.stateReason).toMatch(/ends before its 60,\d{3} triangles are complete/);
  });
});
