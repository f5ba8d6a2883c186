import { createHmac, timingSafeEqual } from 'node:crypto';
import { UPLOAD_CONTENT_TYPE, UPLOAD_TOKEN_HEADER, type VerifyResult } from '../files/signed-urls';

/**
 * Signed upload addresses of query images, by the same rules as model uploads
 * (files/signed-urls.ts): HMAC-SHA256 with the service's URL signing keys (newest signs, all
 * verify) over method, path, expiry and the two bound headers; a random X-Upload-Token kept in
 * the image row; 15 minutes; single use (images.used_at).
 *
 *   PUT {publicUrl}/uploads/images/{imageId}?expires={unix s}&sig={base64url}
 *   sig = HMAC-SHA256(key, "gsw-image-upload-v1\nPUT\n/uploads/images/{imageId}\n{expires}\n
 *                           content-type:{Content-Type}\nx-upload-token:{X-Upload-Token}")
 */
export interface ImageUrlSigner {
  uploadAddress(imageId: string, nonce: string, expiresAt: Date): { url: string; headers: Record<string, string> };
  verifyUpload(input: { imageId: string; expires: string | undefined; sig: string | undefined; contentType: string | undefined; uploadToken: string | undefined }): VerifyResult;
}

const EXPIRES = /^\d{1,12}$/;

export function createImageUrlSigner({ publicUrl, keys, now = Date.now }: { publicUrl: string; keys: readonly string[]; now?: () => number }): ImageUrlSigner {
  const signingKey = keys[0];
  if (!signingKey) throw new Error('No URL signing key.');
  const base = publicUrl.replace(/\/+$/, '');
  const path = (id: string) => `/uploads/images/${encodeURIComponent(id)}`;
  const text = (id: string, expires: string, contentType: string, token: string) =>
    ['gsw-image-upload-v1', 'PUT', path(id), expires, `content-type:${contentType}`, `x-upload-token:${token}`].join('\n');
  const hmac = (key: string, t: string) => createHmac('sha256', key).update(t).digest();

  return {
    uploadAddress(imageId, nonce, expiresAt) {
      const expires = String(Math.floor(expiresAt.getTime() / 1000));
      const sig = hmac(signingKey, text(imageId, expires, UPLOAD_CONTENT_TYPE, nonce)).toString('base64url');
      return { url: `${base}${path(imageId)}?expires=${expires}&sig=${sig}`, headers: { 'Content-Type': UPLOAD_CONTENT_TYPE, [UPLOAD_TOKEN_HEADER]: nonce } };
    },
    verifyUpload({ imageId, expires, sig, contentType, uploadToken }) {
      if (!expires || !sig || !EXPIRES.test(expires) || contentType === undefined || uploadToken === undefined) return { ok: false, reason: 'signature' };
      const t = text(imageId, expires, contentType.trim().toLowerCase(), uploadToken.trim());
      const given = Buffer.from(sig, 'base64url');
      const matches = keys.some((key) => {
        const expected = hmac(key, t);
        return given.length === expected.length && timingSafeEqual(given, expected);
      });
      if (!matches) return { ok: false, reason: 'signature' };
      if (Number(expires) < Math.floor(now() / 1000)) return { ok: false, reason: 'expired' };
      return { ok: true };
    },
  };
}
