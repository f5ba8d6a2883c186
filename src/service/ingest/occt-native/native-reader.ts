// Runs the native CAD reader (occt-reader.cpp) as a child process for the importer: the file goes
// to a private temporary folder, the reader writes the same result occt-import-js answers, and the
// folder is removed whatever happens. Its limits are its own (address space, CPU time) and a
// wall-clock timeout here; what it prints is never in a model's reason (only in `log`, when given).
import type { OcctParams, OcctResult } from 'occt-import-js';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { NativeCadRead, NativeCadReader } from '../../../geometry/import/importer';

export interface NativeReaderConfig {
  /** The built reader (reader-path.ts). */
  path: string;
  /** Address space the reader may use (MB): its libraries, the file and the shapes. */
  memoryMb: number;
  /** Wall-clock limit (its CPU-time limit is the same in seconds). */
  timeoutMs: number;
  /**
   * Smaller files are left to occt-import-js (default {@link NATIVE_MIN_BYTES}): starting the
   * reader's process and its libraries costs more than it saves on them.
   */
  minBytes?: number;
}

/**
 * From about this size the native reader reads faster than the warm WebAssembly one
 * (`npm run bench:cad-readers`, 2026-11-28, read seconds native / WebAssembly: 0.4 MB STEP 0.37 /
 * 0.21, 1.0 MB IGES 0.33 / 0.23, 1.3 MB IGES 0.48 / 0.41, 1.8 MB STEP 0.77 / 0.73, 2.3 MB STEP
 * 1.01 / 1.36, 5 MB 2.16 / 2.53, 25 MB 17.3 / 20.8): starting its process and libraries costs
 * ~0.15 s, and Debian's OpenCascade 7.6 reads little faster than the package's newer one.
 */
export const NATIVE_MIN_BYTES = 2_000_000;

/** Address space the reader's libraries take before it reads anything (measured ~90 MB at rest, with headroom). */
const BASE_MB = 512;

export function nativeCadReader(config: NativeReaderConfig, log: (message: string) => void = () => {}): NativeCadReader {
  return async (format, bytes, params: OcctParams): Promise<NativeCadRead> => {
    if (bytes.byteLength < (config.minBytes ?? NATIVE_MIN_BYTES)) return { ok: false, limit: false, detail: 'small file' };
    const dir = await mkdtemp(path.join(tmpdir(), 'gsw-occt-'));
    try {
      const input = path.join(dir, `model.${format}`);
      const output = path.join(dir, 'result.json');
      await writeFile(input, bytes);
      const args = [
        format,
        input,
        output,
        String(params.linearDeflection ?? 0.001),
        String(params.angularDeflection ?? 0.5),
        String(BASE_MB + config.memoryMb),
        String(Math.ceil(config.timeoutMs / 1000)),
      ];
      const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) => {
        execFile(config.path, args, { timeout: config.timeoutMs, killSignal: 'SIGKILL', maxBuffer: 1 << 20 }, (error, _stdout, stderr) => {
          const e = error as (NodeJS.ErrnoException & { code?: number | string; signal?: NodeJS.Signals }) | null;
          resolve({
            code: e ? (typeof e.code === 'number' ? e.code : null) : 0,
            signal: e?.signal ?? null,
            stderr: String(stderr).slice(0, 2000),
          });
        });
      });
      if (exit.code === 0) return { ok: true, result: JSON.parse(await readFile(output, 'utf8')) as OcctResult };
      log(`native CAD reader: exit ${exit.code ?? '-'} signal ${exit.signal ?? '-'} ${exit.stderr}`);
      // Out of memory (4), killed at the time limit (SIGKILL, SIGXCPU) or by the memory limit's abort.
      const limit = exit.code === 4 || exit.signal === 'SIGKILL' || exit.signal === 'SIGXCPU' || exit.signal === 'SIGABRT';
      return { ok: false, limit, detail: limit ? `${config.memoryMb} MB, ${Math.round(config.timeoutMs / 1000)} s` : 'it stopped' };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
