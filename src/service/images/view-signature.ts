// A model's view signature as model_views stores it (migration 0018): the descriptors of its
// views weighted and in bytes (geometry/search/views/view-index.ts quantizeViews), and their
// polar signatures in a byte a cell (polar-signature.ts packPolar), each compressed with Brotli.
// Apart, so that loading a tenant's descriptors for a scan never reads the polar signatures,
// which only the few best candidates need. 12–15 KB a model (`npm run bench:image` prints it).
import { createHash } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { ModelViews } from '../../geometry/search/views/model-views';
import { packPolar, POLAR_LENGTH, unpackPolar } from '../../geometry/search/views/polar-signature';
import { VIEW_METHOD } from '../../geometry/search/views/shape-features';
import { quantizeViews, VIEW_STEP, VIEW_WEIGHTS } from '../../geometry/search/views/view-index';

/**
 * Names how model_views rows were made: the view descriptor recipe (which query images must share),
 * the distance weights (they are baked into the stored bytes, so refitted weights make every row
 * stale) and this encoding. A row of another method is skipped by search until its model is reprocessed.
 */
export const VIEW_SIGNATURE_METHOD = `${VIEW_METHOD}-w${createHash('sha256').update(VIEW_WEIGHTS).digest('hex').slice(0, 8)}-bytes${Math.round(1 / VIEW_STEP)}-polar16x8-br`;

/** Brotli's quality: 11 (its default) took 25× the time of 6 (52 ms a model against 2) for 10 % fewer bytes. */
const QUALITY = 6;

export interface StoredViewSignature {
  /** Weighted descriptors, one byte each, `count` × `dim`, compressed. */
  descriptors: Uint8Array;
  /** Polar signatures, a byte a cell, compressed. */
  signatures: Uint8Array;
}

const compress = (bytes: Uint8Array) =>
  new Uint8Array(
    brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  );

export function encodeViewSignature(views: ModelViews): StoredViewSignature {
  return { descriptors: compress(quantizeViews(views.data)), signatures: compress(packPolar(views.signatures)) };
}

/** The polar signatures of `views` as search compares them once stored (benchmarks search what the service does). */
export const storedSignatures = (views: ModelViews): Uint8Array => decodeSignatures(encodeViewSignature(views).signatures, views.count);

/** Bytes a model's signature takes in the database. */
export const storedBytes = (s: StoredViewSignature) => s.descriptors.byteLength + s.signatures.byteLength;

/** The stored descriptors, ready to scan; throws when they do not hold `values` bytes. */
export function decodeDescriptors(stored: Uint8Array, values: number): Uint8Array {
  const out = new Uint8Array(brotliDecompressSync(stored));
  if (out.byteLength !== values) throw new Error(`stored view descriptors hold ${out.byteLength} values, not ${values}`);
  return out;
}

/** The stored polar signatures of `views` views, one byte a cell as polar-signature.ts compares them. */
export function decodeSignatures(stored: Uint8Array, views: number): Uint8Array {
  const packed = new Uint8Array(brotliDecompressSync(stored));
  if (packed.byteLength * 2 !== views * POLAR_LENGTH)
    throw new Error(`stored polar signatures hold ${packed.byteLength} bytes, not those of ${views} views`);
  return unpackPolar(packed, views);
}
