import { beforeAll, describe, expect, it } from 'vitest';
import { hostileFiles, type HostileFile } from '../../../service/testing/hostile-files';
import { unreadableReason } from '../importer';
import { importFile } from '../registry';
import { box, to3mf } from '../../testing/fixtures';

const MiB = 1024 * 1024;

describe('hostile files end failed with a plain reason, before the memory is spent', () => {
  let corpus: HostileFile[];
  beforeAll(async () => {
    corpus = await hostileFiles({ bombBytes: 64 * MiB });
  });

  it('refuses each file of the corpus with the reason it deserves', async () => {
    for (const file of corpus) {
      const before = process.memoryUsage().arrayBuffers;
      const result = await importFile(file.fileName, file.bytes, { unpackedMaxBytes: 16 * MiB });
      const grew = process.memoryUsage().arrayBuffers - before;
      expect({ file: file.name, code: 'code' in result ? result.code : 'geometry' }).toEqual({ file: file.name, code: 'failed' });
      if (!('reason' in result)) continue;
      expect(result.reason, file.name).toMatch(file.reason);
      // Nothing an engine says (V8 limits, parser messages) reaches the reason.
      expect(result.reason, file.name).not.toMatch(/0x1fffffe8|RangeError|Invalid typed array|undefined/);
      expect(grew, `${file.name}: typed-array memory grew by ${(grew / MiB).toFixed(1)} MiB`).toBeLessThan(64 * MiB);
    }
  });

  it('reads a 3MF within the limit and refuses the same file under a smaller one', async () => {
    const bytes = to3mf((await box()).mesh);
    const ok = await importFile('part.3mf', bytes, { unpackedMaxBytes: 16 * MiB });
    expect('code' in ok ? ok.reason : 'geometry').toBe('geometry');
    const refused = await importFile('part.3mf', bytes, { unpackedMaxBytes: 100 });
    expect('reason' in refused ? refused.reason : '').toBe('The 3MF archive expands to more than 100 bytes; it was not read.');
  });

  it('never passes an engine message on: limits become plain words', () => {
    expect(unreadableReason('3MF', new RangeError('Cannot create a string longer than 0x1fffffe8 characters'))).toBe(
      'The 3MF file declares more data than one model may hold in memory, so it was not read.',
    );
    expect(unreadableReason('OBJ', new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(
      'The OBJ file is damaged or is not a valid OBJ file, so it could not be read.',
    );
  });
});
