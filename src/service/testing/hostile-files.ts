// Files made to hurt a service that reads them: archive bombs, lying headers, huge declared
// counts, garbage. Used by the importer tests and the reliability suite; each says what its
// reason must say, in words a designer understands.
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';

export interface HostileFile {
  /** What it tries. */
  name: string;
  fileName: string;
  bytes: Uint8Array;
  /** The model's reason must match. */
  reason: RegExp;
}

const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Target="/3D/3dmodel.model" Id="rel0" Type="http://schemas.microsoft.com/3dmanufacturing/2013/01/3dmodel"/></Relationships>';

interface RawEntry {
  name: string;
  data: Uint8Array;
  method: 0 | 8;
  /** What the directory says it unpacks to. */
  size: number;
}

/** The central directory may point several names at one entry (`pointTo`): that is the overlap bomb. */
function zip(entries: RawEntry[], pointTo?: (index: number) => number): Uint8Array {
  const locals: Buffer[] = [];
  const offsets: number[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(e.method, 8);
    header.writeUInt32LE(e.data.length, 18);
    header.writeUInt32LE(e.size, 22);
    header.writeUInt16LE(name.length, 26);
    offsets.push(offset);
    locals.push(header, name, Buffer.from(e.data));
    offset += 30 + name.length + e.data.length;
  }
  const central: Buffer[] = [];
  const names = pointTo
    ? entries.map((e, i) => ({ ...entries[pointTo(i)]!, name: e.name, at: offsets[pointTo(i)]! }))
    : entries.map((e, i) => ({ ...e, at: offsets[i]! }));
  for (const e of names) {
    const name = Buffer.from(e.name);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(e.method, 10);
    record.writeUInt32LE(e.data.length, 20);
    record.writeUInt32LE(e.size, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(e.at, 42);
    central.push(record, name);
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(names.length, 8);
  end.writeUInt16LE(names.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, cd, end]));
}

function threeMf(model: RawEntry, extra: RawEntry[] = [], pointTo?: (index: number) => number): Uint8Array {
  const rels = Buffer.from(RELS);
  return zip([{ name: '_rels/.rels', data: rels, method: 0, size: rels.length }, model, ...extra], pointTo);
}

/** A 3MF model part: a valid start, then `size` bytes in all of spaces, deflated (~1:1000) as a stream. */
async function deflatedSpaces3mf(size: number): Promise<{ data: Uint8Array; size: number }> {
  const head = Buffer.from(
    '<?xml version="1.0"?><model unit="millimeter" xmlns="http://schemas.microsoft.com/3dmanufacturing/core/2015/02"><resources>',
  );
  const deflate = zlib.createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  deflate.write(head);
  const chunk = Buffer.alloc(4 << 20, 32);
  for (let left = size - head.length; left > 0; left -= chunk.length) {
    if (!deflate.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await new Promise((r) => deflate.once('drain', r));
  }
  deflate.end();
  await ended;
  return { data: new Uint8Array(Buffer.concat(out)), size };
}

function glb(json: unknown, bin?: Uint8Array): Uint8Array {
  const text = Buffer.from(JSON.stringify(json));
  const pad = (4 - (text.length % 4)) % 4;
  const jsonChunk = Buffer.concat([text, Buffer.alloc(pad, 32)]);
  const binChunk = bin ? Buffer.concat([Buffer.from(bin), Buffer.alloc((4 - (bin.length % 4)) % 4)]) : undefined;
  const total = 12 + 8 + jsonChunk.length + (binChunk ? 8 + binChunk.length : 0);
  const header = Buffer.alloc(20);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(total, 8);
  header.writeUInt32LE(jsonChunk.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16);
  const parts = [header, jsonChunk];
  if (binChunk) {
    const h = Buffer.alloc(8);
    h.writeUInt32LE(binChunk.length, 0);
    h.writeUInt32LE(0x004e4942, 4);
    parts.push(h, binChunk);
  }
  return new Uint8Array(Buffer.concat(parts));
}

/**
 * The corpus. `bombBytes` is what the bombs unpack to (default 1 GiB, as the attack that took
 * 1.2 GB of memory did); making the corpus takes a few seconds per GiB.
 */
export async function hostileFiles({ bombBytes = 1 << 30 }: { bombBytes?: number } = {}): Promise<HostileFile[]> {
  const bomb = await deflatedSpaces3mf(bombBytes);
  const third = await deflatedSpaces3mf(Math.ceil(bombBytes / 3));
  const triangle = new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]);
  return [
    {
      name: '3MF archive bomb (declares what it expands to)',
      fileName: 'bomb.3mf',
      bytes: threeMf({ name: '3D/3dmodel.model', ...bomb, method: 8 }),
      reason: /3MF archive expands to more than .* it was not read/,
    },
    {
      name: '3MF archive bomb whose directory lies about the size',
      fileName: 'bomb-lying.3mf',
      bytes: threeMf({ name: '3D/3dmodel.model', data: bomb.data, method: 8, size: 4096 }),
      reason: /holds more data than its directory says/,
    },
    {
      name: '3MF with three directory entries sharing one compressed stream',
      fileName: 'overlap.3mf',
      bytes: threeMf(
        { name: '3D/3dmodel.model', data: third.data, method: 8, size: third.size },
        [
          { name: '3D/b.model', data: new Uint8Array(), method: 8, size: third.size },
          { name: '3D/c.model', data: new Uint8Array(), method: 8, size: third.size },
        ],
        (i) => (i >= 1 ? 1 : 0),
      ),
      reason: /share their data/,
    },
    {
      name: 'GLB whose accessor declares two billion vertices without data',
      fileName: 'huge-accessor.glb',
      bytes: glb({
        asset: { version: '2.0' },
        scenes: [{ nodes: [0] }],
        nodes: [{ mesh: 0 }],
        meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
        accessors: [{ count: 2_000_000_000, type: 'VEC3', componentType: 5126, min: [0, 0, 0], max: [1, 1, 1] }],
      }),
      reason: /declares more than .* of geometry data/,
    },
    {
      name: 'GLB with a meshopt view that decodes to 16 GB',
      fileName: 'meshopt-bomb.glb',
      bytes: glb(
        {
          asset: { version: '2.0' },
          extensionsUsed: ['EXT_meshopt_compression'],
          extensionsRequired: ['EXT_meshopt_compression'],
          buffers: [{ byteLength: 36 }, { byteLength: 16_000_000_000, extensions: { EXT_meshopt_compression: { fallback: true } } }],
          bufferViews: [
            {
              buffer: 1,
              byteLength: 16_000_000_000,
              byteStride: 16,
              extensions: {
                EXT_meshopt_compression: { buffer: 0, byteLength: 36, byteStride: 16, count: 1_000_000_000, mode: 'ATTRIBUTES' },
              },
            },
          ],
          accessors: [{ bufferView: 0, count: 3, type: 'VEC3', componentType: 5126 }],
          meshes: [{ primitives: [{ attributes: { POSITION: 0 } }] }],
          nodes: [{ mesh: 0 }],
          scenes: [{ nodes: [0] }],
        },
        new Uint8Array(triangle.buffer),
      ),
      reason: /declares more than .* of geometry data/,
    },
    {
      name: 'glTF whose buffer is an address on another server',
      fileName: 'external.gltf',
      bytes: new Uint8Array(
        Buffer.from(
          JSON.stringify({ asset: { version: '2.0' }, buffers: [{ uri: 'http://169.254.169.254/latest/meta-data', byteLength: 36 }] }),
        ),
      ),
      reason: /separate file/,
    },
    {
      name: 'OFF announcing two billion vertices',
      fileName: 'huge-counts.off',
      bytes: new Uint8Array(Buffer.from('OFF\n2000000000 2000000000 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n')),
      reason: /more than its .* can hold/,
    },
    {
      name: 'binary PLY announcing two billion vertices',
      fileName: 'huge-counts.ply',
      bytes: new Uint8Array(
        Buffer.concat([
          Buffer.from(
            'ply\nformat binary_little_endian 1.0\nelement vertex 2000000000\nproperty float x\nproperty float y\nproperty float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n',
          ),
          Buffer.from(triangle.buffer),
        ]),
      ),
      reason: /more than its .* can hold/,
    },
    {
      name: 'binary STL announcing a billion triangles',
      fileName: 'lying.stl',
      bytes: (() => {
        const b = Buffer.alloc(84 + 50);
        b.writeUInt32LE(1_000_000_000, 80);
        return new Uint8Array(b);
      })(),
      reason: /cut off|damaged/,
    },
    {
      name: 'STEP whose entities are random text',
      fileName: 'garbage.step',
      bytes: new Uint8Array(
        Buffer.from(
          `ISO-10303-21;\nHEADER;\nFILE_DESCRIPTION((''),'2;1');\nFILE_NAME('g','',(''),(''),'','','');\nFILE_SCHEMA(('AUTOMOTIVE_DESIGN'));\nENDSEC;\nDATA;\n` +
            Array.from(
              { length: 5000 },
              (_, i) =>
                `#${i + 1}=${randomBytes(6).toString('hex').toUpperCase()}(#${(i * 7919) % 5000},'${randomBytes(12).toString('base64url')}',(${i}.,-${i}.E9));`,
            ).join('\n') +
            '\nENDSEC;\nEND-ISO-10303-21;\n',
        ),
      ),
      reason: /STEP file|no geometry|could not be read/,
    },
  ];
}
