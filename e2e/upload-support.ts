// Folders on disk for the upload page's e2e (given to <input webkitdirectory> as they are) and
// a recorder of the requests the page makes, to check the order of the uploads and the polling.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page, Request } from '@playwright/test';
import { bracket, plateWithHoles, toStlBinary } from '../src/geometry/testing/fixtures';

/** CAx-IF s1-c5-214 (CATIA): the top assembly references four sub-assemblies, each two part files. */
export const CAXIF_DIR = path.resolve(import.meta.dirname, '../node_modules/occt-import-js/test/testfiles/cax-if/s1-c5-214');
export const TOP = 's1-c5-214.stp';
export const SUBS = ['TAIL.stp', 'HEAD.stp', 'MAINBODY.stp', 'FOOT.stp'];
export const stepFiles = readdirSync(CAXIF_DIR).filter((f) => f.endsWith('.stp'));
export const leafParts = stepFiles.filter((f) => f !== TOP && !SUBS.includes(f));

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `workbench-upload-${prefix}-`));
}

/**
 * `<root>/<name>/`: the top assembly, its sub-assemblies and parts in `parts/`, a plate STL,
 * a cut-off STL (corrupt) and a SolidWorks part (native CAD). Returns the folder.
 */
export async function assemblyFolder(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  mkdirSync(path.join(dir, 'parts'), { recursive: true });
  cpSync(path.join(CAXIF_DIR, TOP), path.join(dir, TOP));
  for (const f of stepFiles.filter((x) => x !== TOP)) cpSync(path.join(CAXIF_DIR, f), path.join(dir, 'parts', f));
  const [plate, part] = await Promise.all([plateWithHoles(), bracket()]);
  writeFileSync(path.join(dir, 'plate.stl'), toStlBinary(plate.mesh));
  const stl = toStlBinary(part.mesh);
  writeFileSync(path.join(dir, 'broken.stl'), stl.subarray(0, Math.floor(stl.length / 2)));
  // An OLE compound file header, as SolidWorks writes, and nothing the service can read.
  writeFileSync(path.join(dir, 'housing.sldprt'), new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 1, 2, 3, 4]));
  return dir;
}

/** `<root>/<name>/` with the sub-assemblies and parts only (no top assembly). */
export function partsFolder(root: string, name: string): string {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const f of stepFiles.filter((x) => x !== TOP)) cpSync(path.join(CAXIF_DIR, f), path.join(dir, f));
  return dir;
}

/** `<root>/<name>/` with `count` distinct binary STLs of a few hundred kB each. */
export async function stlFolder(root: string, name: string, count: number): Promise<string> {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const plate = await plateWithHoles({ length: 40 + i, segments: 96 });
    writeFileSync(path.join(dir, `plate-${String(i).padStart(2, '0')}.stl`), toStlBinary(plate.mesh));
  }
  return dir;
}

export interface PollRequest {
  at: number;
  ids: string[];
}

/** The page's requests that matter to the upload: record creations, PUTs and state polls. */
export class UploadTraffic {
  readonly creates: { at: number; filePaths: string[] }[] = [];
  /** PUT starts in order, by file path (from the creation answers). */
  readonly puts: { at: number; filePath: string }[] = [];
  readonly polls: PollRequest[] = [];
  private readonly pathOfUrl = new Map<string, string>();
  private readonly idOfPath = new Map<string, string>();
  private readonly pending: Promise<void>[] = [];

  constructor(page: Page) {
    page.on('request', (request) => this.onRequest(request));
    page.on('response', (response) => {
      const request = response.request();
      if (request.method() !== 'POST' || !/\/v2\/models(\?|$)/.test(new URL(request.url()).pathname + '?')) return;
      this.pending.push(
        response
          .json()
          .then(
            (body: { models?: { model: { id: string; filePath?: string }; uploadUrl?: string; uploadInfo?: { uploadUrl: string } }[] }) => {
              // A deployment of the published API answers no paths: they are the ones asked for, in order.
              const asked = (request.postDataJSON() as { models: { filePath: string }[] }).models;
              for (const [i, e] of (body.models ?? []).entries()) {
                const filePath = e.model.filePath ?? asked[i]?.filePath ?? '';
                this.pathOfUrl.set(e.uploadUrl ?? e.uploadInfo?.uploadUrl ?? '', filePath);
                this.idOfPath.set(filePath, e.model.id);
              }
            },
          )
          .catch(() => undefined),
      );
    });
  }

  private onRequest(request: Request): void {
    const url = new URL(request.url());
    // The browser's own start time of the request where it has one (less jitter than ours).
    const startTime = request.timing().startTime;
    const at = startTime > 0 ? startTime : Date.now();
    if (request.method() === 'POST' && url.pathname === '/v2/models') {
      const body = request.postDataJSON() as { models: { filePath: string }[] };
      this.creates.push({ at, filePaths: body.models.map((m) => m.filePath) });
    } else if (request.method() === 'PUT' && url.pathname.startsWith('/uploads/models/')) {
      this.puts.push({ at, filePath: request.url() });
    } else if (request.method() === 'GET' && url.pathname === '/v2/models') {
      const filter = url.searchParams.get('filter') ?? '';
      const ids = /^id\(in\((.*)\)\)$/.exec(filter)?.[1];
      if (ids !== undefined) this.polls.push({ at, ids: ids.split(',').map((s) => s.replace(/^'|'$/g, '')) });
    }
  }

  /** PUTs with the file path each one sent (once the creation answers are read). */
  async putPaths(): Promise<string[]> {
    await Promise.all(this.pending);
    return this.puts.map((p) => this.pathOfUrl.get(p.filePath) ?? p.filePath);
  }

  /** The model id the service gave the file at `filePath`. */
  async modelIdOf(filePath: string): Promise<string | undefined> {
    await Promise.all(this.pending);
    return this.idOfPath.get(filePath);
  }

  /**
   * Most poll requests seen within any window of `windowMs`. The start times jitter by some
   * tens of milliseconds against the page's timer (the page reads its token before each fetch,
   * and the machine is shared), so callers leave that much slack.
   */
  maxPollsWithin(windowMs: number): number {
    let max = 0;
    for (let i = 0; i < this.polls.length; i++) {
      let n = 0;
      for (let j = i; j < this.polls.length && this.polls[j]!.at - this.polls[i]!.at < windowMs; j++) n++;
      max = Math.max(max, n);
    }
    return max;
  }
}
