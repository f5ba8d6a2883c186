import { createHmac } from 'node:crypto';
import { UPLOAD_CONTENT_TYPE, UPLOAD_TOKEN_HEADER, verifySignature, type VerifyResult } from '../files/signed-urls';

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
  verifyUpload(input: {
    imageId: string;
    expires: string | undefined;
    sig: string | undefined;
    contentType: string | undefined;
    uploadToken: string | undefined;
  }): VerifyResult;
}

export function createImageUrlSigner({
  publicUrl,
  keys,
  now = Date.now,
}: {
  publicUrl: string;
  keys: readonly string[];
  now?: () => number;
}): ImageUrlSigner {
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
      return {
        url: `${base}${path(imageId)}?expires=${expires}&sig=${sig}`,
        headers: { 'Content-Type': UPLOAD_CONTENT_TYPE, [UPLOAD_TOKEN_HEADER]: nonce },
      };
    },
    verifyUpload({ imageId, expires, sig, contentType, uploadToken }) {
      if (contentType === undefined || uploadToken === undefined) return { ok: false, reason: 'signature' };
      return verifySignature(
        keys,
        text(imageId, expires ?? '', contentType.trim().toLowerCase(), uploadToken.trim()),
        expires,
        sig,
        Math.floor(now() / 1000),
      );
    },
  };
}
