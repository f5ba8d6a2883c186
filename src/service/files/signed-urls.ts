import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/**
 * Signed addresses served by the service itself.
 *
 * Upload:  PUT  {publicUrl}/uploads/models/{modelId}?expires={unix s}&sig={base64url}
 *   sig = HMAC-SHA256(key, "gsw-upload-v1\nPUT\n/uploads/models/{modelId}\n{expires}\n
 *                           content-type:{Content-Type}\nx-upload-token:{X-Upload-Token}")
 *   The header values come from the request, so a missing or changed header, a changed model
 *   id, method or expiry all break the signature. X-Upload-Token is a random nonce kept in the
 *   `uploads` row, so a client cannot make up an address for another model either.
 *
 * Files:   GET  {publicUrl}/files/models/{modelId}/{viewer.glb|thumbnail.png}?v={rev}&expires={unix s}&sig=…
 *   sig = HMAC-SHA256(key, "gsw-file-v1\nGET\n/files/models/{modelId}/{file}\n{rev}\n{expires}")
 *   `rev` changes whenever processing writes new files, so a cached old file is never shown for a
 *   new one. Expiry is rounded up to a 5-minute step: the same address is handed out for a while,
 *   which lets the browser cache previews across polls.
 *
 * Keys are persisted with the service keys (store/keys.ts), newest first; all are accepted, the
 * first signs (rotation without breaking addresses in flight).
 */

export const UPLOAD_TTL_SECONDS = 15 * 60;
export const FILE_URL_TTL_SECONDS = 10 * 60;
const FILE_URL_STEP_SECONDS = 5 * 60;

export const UPLOAD_CONTENT_TYPE = 'application/octet-stream';
export const UPLOAD_TOKEN_HEADER = 'X-Upload-Token';

/** Derived files, and the original as uploaded (`source`, handed out as a download). */
export type ModelFileKind = 'viewer.glb' | 'thumbnail.png' | 'source';
export const modelFileKinds: readonly ModelFileKind[] = ['viewer.glb', 'thumbnail.png', 'source'];

/** The query of a signed address: its expiry, signature and (files) revision. */
export const signedQuerySchema = z.object({ expires: z.string().optional(), sig: z.string().optional(), v: z.string().optional() });

export type VerifyResult = { ok: true } | { ok: false; reason: 'signature' | 'expired' };

export interface UrlSigner {
  uploadPath(modelId: string): string;
  /** The address and headers of the creation response. */
  uploadAddress(modelId: string, nonce: string, expiresAt: Date): { url: string; headers: Record<string, string> };
  verifyUpload(input: {
    modelId: string;
    expires: string | undefined;
    sig: string | undefined;
    contentType: string | undefined;
    uploadToken: string | undefined;
  }): VerifyResult;
  /** A short-lived GET address of a model's derived file. */
  fileUrl(modelId: string, file: ModelFileKind, rev: string): string;
  verifyFile(input: {
    modelId: string;
    file: string;
    rev: string | undefined;
    expires: string | undefined;
    sig: string | undefined;
  }): VerifyResult;
  /** Seconds until `expires` (for Cache-Control), 0 if past or invalid. */
  secondsLeft(expires: string | undefined): number;
}

export interface UrlSignerOptions {
  publicUrl: string;
  /** Newest first; the first signs. */
  keys: readonly string[];
  /** Milliseconds since the epoch (tests move the clock). */
  now?: () => number;
}

function hmac(key: string, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

const EXPIRES = /^\d{1,12}$/;

/**
 * The one check of a signed address (model uploads, model files, image uploads): the signature
 * of `text` under any of `keys`, compared in constant time, then the expiry. A malformed expiry
 * or signature is a bad signature.
 */
export function verifySignature(
  keys: readonly string[],
  text: string,
  expires: string | undefined,
  sig: string | undefined,
  nowSeconds: number,
): VerifyResult {
  if (!expires || !sig || !EXPIRES.test(expires)) return { ok: false, reason: 'signature' };
  const given = Buffer.from(sig, 'base64url');
  const matches = keys.some((key) => {
    const expected = hmac(key, text);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) return { ok: false, reason: 'signature' };
  if (Number(expires) < nowSeconds) return { ok: false, reason: 'expired' };
  return { ok: true };
}

export function createUrlSigner({ publicUrl, keys, now = Date.now }: UrlSignerOptions): UrlSigner {
  const signingKey = keys[0];
  if (!signingKey) throw new Error('No URL signing key.');
  const base = publicUrl.replace(/\/+$/, '');
  const nowSeconds = () => Math.floor(now() / 1000);

  const sign = (text: string) => hmac(signingKey, text).toString('base64url');

  const verify = (text: string, expires: string | undefined, sig: string | undefined) =>
    verifySignature(keys, text, expires, sig, nowSeconds());

  const uploadPath = (modelId: string) => `/uploads/models/${encodeURIComponent(modelId)}`;
  const uploadText = (modelId: string, expires: string, contentType: string, token: string) =>
    ['gsw-upload-v1', 'PUT', uploadPath(modelId), expires, `content-type:${contentType}`, `x-upload-token:${token}`].join('\n');

  const filePath = (modelId: string, file: string) => `/files/models/${encodeURIComponent(modelId)}/${file}`;
  const fileText = (modelId: string, file: string, rev: string, expires: string) =>
    ['gsw-file-v1', 'GET', filePath(modelId, file), rev, expires].join('\n');

  return {
    uploadPath,

    uploadAddress(modelId, nonce, expiresAt) {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      const sig = sign(uploadText(modelId, expires, UPLOAD_CONTENT_TYPE, nonce));
      return {
        url: `${base}${uploadPath(modelId)}?expires=${expires}&sig=${sig}`,
        headers: { 'Content-Type': UPLOAD_CONTENT_TYPE, [UPLOAD_TOKEN_HEADER]: nonce },
      };
    },

    verifyUpload({ modelId, expires, sig, contentType, uploadToken }) {
      if (contentType === undefined || uploadToken === undefined) return { ok: false, reason: 'signature' };
      // Media types are case-insensitive; the token is compared exactly.
      return verify(uploadText(modelId, expires ?? '', contentType.trim().toLowerCase(), uploadToken.trim()), expires, sig);
    },

    fileUrl(modelId, file, rev) {
      const expires = String(Math.ceil((nowSeconds() + FILE_URL_TTL_SECONDS) / FILE_URL_STEP_SECONDS) * FILE_URL_STEP_SECONDS);
      const sig = sign(fileText(modelId, file, rev, expires));
      return `${base}${filePath(modelId, file)}?v=${encodeURIComponent(rev)}&expires=${expires}&sig=${sig}`;
    },

    verifyFile({ modelId, file, rev, expires, sig }) {
      if (rev === undefined) return { ok: false, reason: 'signature' };
      return verify(fileText(modelId, file, rev, expires ?? ''), expires, sig);
    },

    secondsLeft(expires) {
      if (!expires || !EXPIRES.test(expires)) return 0;
      return Math.max(0, Number(expires) - nowSeconds());
    },
  };
}
