import type { FormatId } from '../../contract/file-types';

/** What a file's first bytes say it is. */
export interface Sniffed {
  /** A readable format, or a name for something else we recognise (`png`, `zip`, `sldprt`...). */
  kind: FormatId | OtherKind;
  /** In words a designer understands: "a PNG image", "a STEP file". */
  description: string;
}

export type OtherKind =
  | 'text'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'bmp'
  | 'tiff'
  | 'pdf'
  | 'zip'
  | 'gzip'
  | '7z'
  | 'rar'
  | 'html'
  | 'xml'
  | 'json'
  | 'executable'
  | 'ole'
  | 'parasolid'
  | 'jt'
  | 'creo'
  | 'catia'
  | 'fcstd'
  | 'rhino';

const FORMAT_NAMES: Record<FormatId, string> = {
  stl: 'an STL file',
  obj: 'an OBJ file',
  ply: 'a PLY file',
  off: 'an OFF file',
  gltf: 'a glTF file',
  glb: 'a GLB (binary glTF) file',
  '3mf': 'a 3MF file',
  step: 'a STEP file',
  iges: 'an IGES file',
  brep: 'an OpenCascade BREP file',
};

export function describeFormat(f: FormatId): string {
  return FORMAT_NAMES[f];
}

const latin1 = new TextDecoder('latin1');

/**
 * Recognises a file from its first bytes (a few KB are enough). `totalSize`, when known, lets a
 * binary STL be recognised by its exact size, the only sign it carries.
 * Returns undefined for binary content that matches nothing.
 */
export function sniff(bytes: Uint8Array, totalSize?: number): Sniffed | undefined {
  const b = bytes;
  const at = (sig: number[], off = 0) => sig.every((v, i) => b[off + i] === v);
  const head = latin1.decode(b.subarray(0, Math.min(b.byteLength, 4096))).replace(/^\u00EF\u00BB\u00BF/, '');
  const trimmed = head.trimStart();

  if (totalSize !== undefined && totalSize >= 84 && b.byteLength >= 84) {
    const n = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(80, true);
    if (84 + 50 * n === totalSize && n > 0) return known('stl');
  }
  if (at([0x67, 0x6c, 0x54, 0x46])) return known('glb');
  if (at([0x89, 0x50, 0x4e, 0x47])) return { kind: 'png', description: 'a PNG image' };
  if (at([0xff, 0xd8, 0xff])) return { kind: 'jpeg', description: 'a JPEG image' };
  if (head.startsWith('GIF8')) return { kind: 'gif', description: 'a GIF image' };
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return { kind: 'webp', description: 'a WebP image' };
  if (head.startsWith('BM') && b.byteLength > 14 && b[6] === 0 && b[7] === 0) return { kind: 'bmp', description: 'a BMP image' };
  if (head.startsWith('II*\0') || head.startsWith('MM\0*')) return { kind: 'tiff', description: 'a TIFF image' };
  if (head.startsWith('%PDF')) return { kind: 'pdf', description: 'a PDF document' };
  if (at([0x1f, 0x8b])) return { kind: 'gzip', description: 'a gzip-compressed file' };
  if (at([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return { kind: '7z', description: 'a 7-Zip archive' };
  if (head.startsWith('Rar!')) return { kind: 'rar', description: 'a RAR archive' };
  if (head.startsWith('\x7fELF') || head.startsWith('MZ')) return { kind: 'executable', description: 'a program (executable file)' };
  if (at([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) {
    return {
      kind: 'ole',
      description: 'a Microsoft compound document, the container of older SolidWorks, Inventor, Solid Edge and Office files',
    };
  }
  if (at([0x50, 0x4b, 0x03, 0x04]) || at([0x50, 0x4b, 0x05, 0x06])) {
    if (head.includes('3D/') || (head.includes('[Content_Types].xml') && head.includes('.model'))) return known('3mf');
    if (head.includes('Document.xml')) return { kind: 'fcstd', description: 'a FreeCAD document' };
    return { kind: 'zip', description: 'a ZIP archive' };
  }
  if (head.startsWith('V5_CFV2')) return { kind: 'catia', description: 'a CATIA V5 document' };
  if (head.startsWith('#UGC:')) return { kind: 'creo', description: 'a Creo (Pro/ENGINEER) file' };
  if (/^Version \d+\.\d+ JT/.test(head)) return { kind: 'jt', description: 'a JT file' };
  if (head.startsWith('3D Geometry File Format')) return { kind: 'rhino', description: 'a Rhino 3D model' };
  if (/^\*\*ABCDEFGHIJKLMNOPQRSTUVWXYZ/.test(trimmed) || head.startsWith('PS\0\0')) {
    return { kind: 'parasolid', description: 'a Parasolid file' };
  }

  if (/^ply\r?\n/.test(head)) return known('ply'); // text header, possibly binary body

  if (!isText(b.subarray(0, Math.min(b.byteLength, 4096)))) return undefined;

  if (/^ISO-10303-21\s*;/.test(trimmed)) return known('step');
  if (/^(DBRep_DrawableShape|CASCADE Topology V)/.test(trimmed)) return known('brep');
  if (isIges(head)) return known('iges');
  if (/^[A-Z]*OFF(\s|$)/.test(trimmed)) return known('off');
  if (/^solid\b/i.test(trimmed) && /\b(facet|endsolid)\b/i.test(head)) return known('stl');
  if (trimmed.startsWith('{')) {
    if (/"asset"\s*:/.test(head) && /"version"\s*:\s*"2/.test(head)) return known('gltf');
    return { kind: 'json', description: 'a JSON text file' };
  }
  if (/^<!doctype html|^<html/i.test(trimmed)) return { kind: 'html', description: 'a web page (HTML)' };
  if (trimmed.startsWith('<?xml') || trimmed.startsWith('<')) return { kind: 'xml', description: 'an XML document' };
  if (looksLikeObj(head)) return known('obj');
  return { kind: 'text', description: 'a text file' };
}

function known(f: FormatId): Sniffed {
  return { kind: f, description: FORMAT_NAMES[f] };
}

function isText(b: Uint8Array): boolean {
  if (b.byteLength === 0) return false;
  let bad = 0;
  for (const c of b) {
    if (c === 0) return false;
    if (c < 9 || (c > 13 && c < 32)) bad++;
  }
  return bad <= b.byteLength / 100;
}

// IGES: fixed 80-column records, section letter in column 73 followed by a sequence number.
function isIges(head: string): boolean {
  const first = head.split(/\r?\n/, 1)[0] ?? '';
  return first.length >= 80 && /^[SGF]\s*\d+$/.test(first.slice(72, 80)) && (first[72] === 'S' || first[72] === 'G');
}

function looksLikeObj(head: string): boolean {
  let statements = 0;
  for (const raw of head.split(/\r?\n/).slice(0, -1)) {
    const l = raw.trim();
    if (l === '' || l.startsWith('#')) continue;
    const kw = l.split(/\s+/, 1)[0]!;
    if (!['v', 'vn', 'vt', 'vp', 'f', 'o', 'g', 's', 'l', 'p', 'mtllib', 'usemtl'].includes(kw)) return false;
    statements++;
  }
  return statements > 0;
}
