// Reading a ZIP package (3MF) with its size known before the memory is spent. fflate inflates;
// its unzip does not expose where each entry's data lies, which is what an overlap check needs
// (overlapping entries are how a 1 MB archive expands to gigabytes), so the central directory is
// read here: the same check CPython's zipfile and Info-ZIP's unzip make.
import { Inflate } from 'fflate';

/** Why an archive was not read, in words a designer understands. */
export class ArchiveRefused extends Error {}

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  /** As the directory declares it; reading checks the data against it. */
  size: number;
  /** Where the entry's local header starts and its data ends (exclusive). */
  start: number;
  end: number;
  dataStart: number;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

/** 268435456 → "256 MiB" (limits are read by people). */
export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1 && Number.isInteger(n / 1024)) {
    n /= 1024;
    i++;
  }
  return `${n.toLocaleString('en-US')} ${units[i]}`;
}

/**
 * Lists the entries of a ZIP archive from its central directory and refuses archives whose
 * entries overlap each other or the directory, lie outside the file, are encrypted, or declare
 * more than `maxBytes` unpacked in all. `label` names the format in reasons ("3MF").
 */
export function readZipDirectory(bytes: Uint8Array, label: string, maxBytes: number): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const damaged = (what: string) => new ArchiveRefused(`The ${label} file is a damaged ZIP package (${what}).`);
  let eocd = -1;
  for (let i = bytes.byteLength - 22; i >= Math.max(0, bytes.byteLength - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw damaged('its directory is missing; it was probably cut off');
  let count = view.getUint16(eocd + 10, true);
  let cdSize = view.getUint32(eocd + 12, true);
  let cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const locator = eocd - 20;
    if (locator < 0 || view.getUint32(locator, true) !== EOCD64_LOCATOR) throw damaged('its ZIP64 directory is missing');
    const at = safeNumber(view.getBigUint64(locator + 8, true));
    if (at + 56 > bytes.byteLength || view.getUint32(at, true) !== EOCD64) throw damaged('its ZIP64 directory is missing');
    count = safeNumber(view.getBigUint64(at + 32, true));
    cdSize = safeNumber(view.getBigUint64(at + 40, true));
    cdOffset = safeNumber(view.getBigUint64(at + 48, true));
  }
  if (cdOffset + cdSize > bytes.byteLength) throw damaged('its directory points outside the file');
  // A directory record takes at least 46 bytes: a count the directory cannot hold is a lie.
  if (count * 46 > cdSize) throw damaged('its directory announces more entries than it holds');

  const entries: ZipEntry[] = [];
  let p = cdOffset;
  let declared = 0;
  for (let k = 0; k < count; k++) {
    if (p + 46 > cdOffset + cdSize || view.getUint32(p, true) !== CENTRAL) throw damaged('its directory is malformed');
    const flags = view.getUint16(p + 8, true);
    const method = view.getUint16(p + 10, true);
    let compressedSize = view.getUint32(p + 20, true);
    let size = view.getUint32(p + 24, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    let start = view.getUint32(p + 42, true);
    const name = new TextDecoder().decode(bytes.subarray(p + 46, p + 46 + nameLength));
    // ZIP64: the 64-bit values follow in the order of the 32-bit fields that overflowed.
    for (let e = p + 46 + nameLength; e + 4 <= p + 46 + nameLength + extraLength;) {
      const id = view.getUint16(e, true);
      const length = view.getUint16(e + 2, true);
      if (id === 0x0001) {
        let q = e + 4;
        const next = () => {
          const v = safeNumber(view.getBigUint64(q, true));
          q += 8;
          return v;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (start === 0xffffffff) start = next();
      }
      e += 4 + length;
    }
    p += 46 + nameLength + extraLength + commentLength;
    if (flags & 1) throw new ArchiveRefused(`The ${label} file is encrypted (its entry "${name}" needs a password), so it cannot be read.`);
    if (start + 30 > cdOffset || view.getUint32(start, true) !== LOCAL) throw damaged(`entry "${name}" points to no entry`);
    const dataStart = start + 30 + view.getUint16(start + 26, true) + view.getUint16(start + 28, true);
    const end = dataStart + compressedSize;
    if (end > cdOffset) throw damaged(`entry "${name}" runs into the directory`);
    declared += size;
    entries.push({ name, method, compressedSize, size, start, end, dataStart });
  }
  const byStart = [...entries].sort((a, b) => a.start - b.start);
  for (let i = 1; i < byStart.length; i++) {
    if (byStart[i]!.start < byStart[i - 1]!.end) {
      throw new ArchiveRefused(
        `The ${label} file's ZIP entries "${byStart[i - 1]!.name}" and "${byStart[i]!.name}" share their data, a trick of archive bombs; it was not read.`,
      );
    }
  }
  if (declared > maxBytes) throw new ArchiveRefused(`The ${label} archive expands to more than ${formatBytes(maxBytes)}; it was not read.`);
  return entries;
}

/**
 * Unpacks one entry into exactly the bytes its directory declares (already within the archive's
 * limit): the inflater is fed in slices and stopped at the first byte beyond them.
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, label: string): Uint8Array {
  const data = bytes.subarray(entry.dataStart, entry.end);
  const lying = () =>
    new ArchiveRefused(
      `The ${label} file's ZIP entry "${entry.name}" holds more data than its directory says, a sign of a deliberately malformed file; it was not read.`,
    );
  if (entry.method === 0) {
    if (entry.size !== entry.compressedSize) throw lying();
    return data;
  }
  if (entry.method !== 8) {
    throw new ArchiveRefused(
      `The ${label} file's entry "${entry.name}" is compressed with a method we cannot read (ZIP method ${entry.method}); save it again with standard compression.`,
    );
  }
  const out = new Uint8Array(entry.size);
  let written = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    if (written + chunk.length > out.length) {
      over = true;
      throw lying();
    }
    out.set(chunk, written);
    written += chunk.length;
  });
  try {
    // Small slices: fflate inflates a whole slice before it hands anything out, up to 1,032 times
    // its size (deflate's limit), so a slice is no larger than what may still come out of it over
    // 1,032 (at least 1 KiB, at most 16 KiB): an entry whose directory lies stops within about 1 MB
    // past its declared size, not 16 MB (with fflate's buffers, 48 MiB) on. The smaller slices of
    // an entry's last 16 MB cost ~9 % (68 MB of 3MF XML in 1.63 s against 1.50 s).
    if (data.length === 0) inflater.push(data, true);
    for (let i = 0; i < data.length;) {
      const slice = Math.min(16 * 1024, Math.max(1024, Math.ceil((out.length - written) / 1032)));
      inflater.push(data.subarray(i, i + slice), i + slice >= data.length);
      i += slice;
    }
  } catch {
    if (over) throw lying();
    throw new ArchiveRefused(
      `The ${label} file is a damaged ZIP package (entry "${entry.name}" cannot be unpacked; it was probably cut off).`,
    );
  }
  if (written !== entry.size)
    throw new ArchiveRefused(`The ${label} file is a damaged ZIP package (entry "${entry.name}" is shorter than its directory says).`);
  return out;
}

function safeNumber(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ArchiveRefused('The ZIP package declares impossible sizes; it was not read.');
  return Number(v);
}
