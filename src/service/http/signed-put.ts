// The signed PUT addresses (model files, query images) outside /v2: the signature is the
// authorisation, and a refusal is answered before the body is read.
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { UPLOAD_TOKEN_HEADER, type VerifyResult } from '../files/signed-urls';
import { Forbidden, TooLarge } from './errors';

/** A header as one string (repeated headers joined), or undefined. */
export function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(',') : value;
}

/** Most unread body bytes read and dropped after an early answer before the connection is cut. */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
/** Longest time spent reading and dropping them. */
const DRAIN_MAX_MS = 10_000;

/**
 * Reads and drops the rest of a request body answered early, so that the client, still sending,
 * reads the answer: closing a socket with unread bytes makes the kernel send a reset, and a
 * reset makes the client's kernel drop the answer it had not read yet (the client then sees
 * EPIPE or ECONNRESET instead of the status). The connection stays usable once the body is in;
 * a client that sends past the bounds is cut off, long after the answer went out.
 */
const draining = new WeakSet<object>();

export function drainRest(request: FastifyRequest): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed || draining.has(raw)) return;
  draining.add(raw);
  raw.unpipe();
  let bytes = 0;
  const cut = () => raw.socket?.destroy();
  const timer = setTimeout(cut, DRAIN_MAX_MS);
  timer.unref();
  raw.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > DRAIN_MAX_BYTES) cut();
  });
  raw.once('end', () => clearTimeout(timer));
  raw.once('close', () => clearTimeout(timer));
  raw.resume();
}

/** Throws `error` as the answer, the rest of the body drained (drainRest). */
export function refuseEarly(request: FastifyRequest, error: Error): never {
  drainRest(request);
  throw error;
}

export interface SignedPutRule {
  /** The route parameter that names the record (`modelId`, `imageId`). */
  idParam: string;
  verify(input: {
    id: string;
    expires: string | undefined;
    sig: string | undefined;
    contentType: string | undefined;
    uploadToken: string | undefined;
  }): VerifyResult;
  maxBytes: number;
  expiredMessage: string;
  tooLargeMessage: string;
}

/**
 * The guard of every signed PUT, as an onRequest hook (before the body is read): the signature
 * over address and bound headers, its expiry, and a declared Content-Length over the limit. A
 * refusal is the contract's JSON error, read by the client before the connection closes.
 */
export function signedPutGuard(rule: SignedPutRule): onRequestAsyncHookHandler {
  return async function guard(request: FastifyRequest, _reply: FastifyReply) {
    const params = request.params as Record<string, string | undefined>;
    const query = request.query as Record<string, string | string[] | undefined>;
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
    const verdict = rule.verify({
      id: params[rule.idParam] ?? '',
      expires: one(query.expires),
      sig: one(query.sig),
      contentType: header(request, 'content-type'),
      uploadToken: header(request, UPLOAD_TOKEN_HEADER),
    });
    if (!verdict.ok) {
      refuseEarly(
        request,
        new Forbidden(
          verdict.reason === 'expired'
            ? rule.expiredMessage
            : 'The upload address or its headers are not as signed; send every header from the creation response unchanged.',
        ),
      );
    }
    const declared = Number(header(request, 'content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > rule.maxBytes) refuseEarly(request, new TooLarge(rule.tooLargeMessage));
  };
}
