// Sends one delivery: the event's JSON, signed as Standard Webhooks says (webhook-id,
// webhook-timestamp, webhook-signature: HMAC-SHA256 of `id.timestamp.body` with the endpoint's
// secret), by the library that defines the scheme. A 2xx answer within the timeout is delivered;
// anything else is tried again by the queue (job-queue.ts WEBHOOK_QUEUE: retries with backoff).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { guardedLookup, refusedRange } from './address-guard';

/** How long a receiver has to answer. */
export const DELIVERY_TIMEOUT_MS = 10_000;

export interface AttemptResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

export async function postSigned(
  target: { url: string; secret: string },
  message: { id: string; body: string },
  options: { allowPrivate: boolean; now?: Date; timeoutMs?: number },
): Promise<AttemptResult> {
  const url = new URL(target.url);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host)) {
    const range = refusedRange(host);
    if (range)
      return { ok: false, status: null, error: `${host} is in the ${range} range, which webhooks may not reach on this deployment` };
  }
  const now = options.now ?? new Date();
  const signature = new Webhook(target.secret).sign(message.id, now, message.body);
  const send = url.protocol === 'https:' ? https.request : http.request;
  const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const done = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve(result);
    };
    const request = send(
      url,
      {
        method: 'POST',
        lookup: guardedLookup(options.allowPrivate),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'geometric-search-workbench-webhooks',
          'webhook-id': message.id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': signature,
        },
      },
      (response) => {
        // The status line is the answer; the body is not read (a receiver streaming one slowly must
        // not hold a worker), so the connection is closed at once.
        const status = response.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        done({
          ok,
          status,
          error: ok ? null : `The receiver answered ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}.`,
        });
        response.destroy();
      },
    );
    // One deadline for connecting, sending and the status line (a socket timeout only catches idleness).
    const deadline = setTimeout(() => request.destroy(new Error(`No answer within ${timeoutMs / 1000} s.`)), timeoutMs);
    request.on('error', (error) => done({ ok: false, status: null, error: error.message }));
    request.end(message.body);
  });
}
