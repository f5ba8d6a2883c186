// Webhooks over HTTP against the really started service with real ingestion and queue workers:
// an admin registers a receiver this test starts; uploads, duplicates and deletions reach it as
// signed POSTs (checked with the Standard Webhooks library, as a receiver would); a failing receiver
// is tried again; addresses inside the deployment are refused unless it allows them.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdWebhookResponseSchema, webhookDeliveryListResponseSchema, webhookListResponseSchema } from '../../contract/webhooks';
import { applyToMesh } from '../../geometry/mesh/mesh';
import { rotationZ } from '../../geometry/mesh/transform';
import { bracket, toStlBinary } from '../../geometry/testing/fixtures';
import { startIngestTestService, type IngestTestService } from '../ingest/ingest-test-helpers';
import { startTestService, type TestService } from '../testing/start-test-service';
import { postSigned } from './deliver';
import { addressProblem } from './address-guard';

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A receiver on 127.0.0.1: records every POST; `/flaky` answers 500 to its first two. */
async function startReceiver() {
  const received: Received[] = [];
  let flaky = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      if (req.url === '/flaky' && flaky++ < 2) res.writeHead(500).end('not yet');
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, received, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

interface ModelSummary {
  id: string;
  name: string;
  filePath: string;
  state: string;
}
/** A delivery's body as the service writes it (webhooks/events.ts). */
interface EventBody {
  type: string;
  timestamp: string;
  data: { model: ModelSummary; duplicates?: { model: ModelSummary; matchPercentage: number }[] };
}

async function until<T>(what: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
    const found = what();
    if (found !== undefined) return found;
  }
  throw new Error('timed out');
}

describe('webhooks', () => {
  let svc: IngestTestService;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: string;
  let secret: string;
  let hookId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    svc = await startIngestTestService({}, { webhooksAllowPrivate: true });
    admin = await svc.tokenFor(await svc.createUser({ tenantKey: 'acme', roles: ['viewer', 'editor', 'admin'] }));
  }, 120_000);
  afterAll(async () => {
    await svc?.stop();
    await receiver?.close();
  });

  const api = async (path: string, init: { method?: string; json?: unknown; token?: string } = {}) => {
    const res = await svc.api(path, { token: admin, ...init });
    return { status: res.status, body: res.status === 204 ? null : ((await res.json()) as unknown) };
  };
  /** The events of `type` the receiver got at `path`, each verified as a receiver would. */
  const eventsOf = (type: string, path = '/hooks', key = secret) =>
    receiver.received
      .filter((r) => r.path === path)
      .map((r) => ({ ...r, payload: new Webhook(key).verify(r.body, r.headers as Record<string, string>) as EventBody }))
      .filter((r) => r.payload.type === type);

  it('an admin registers an endpoint: the secret is answered once, never listed; others may not', async () => {
    const created = await api('/v2/webhooks', {
      method: 'POST',
      json: { url: `${receiver.base}/hooks`, events: ['model.finished', 'model.deleted', 'model.duplicate-found'], description: 'PLM' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const answer = createdWebhookResponseSchema.parse(created.body);
    expect(answer.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(answer.webhook).toMatchObject({ url: `${receiver.base}/hooks`, enabled: true, description: 'PLM', lastDelivery: null });
    ({ secret } = answer);
    hookId = answer.webhook.id;
    const listed = await api('/v2/webhooks');
    expect(webhookListResponseSchema.parse(listed.body).webhooks.map((w) => w.id)).toEqual([hookId]);
    expect(JSON.stringify(listed.body)).not.toContain(secret);

    expect((await api('/v2/webhooks', { token: svc.token })).status).toBe(403); // an editor
    const otherAdmin = await svc.tokenFor(await svc.createUser({ tenantKey: 'globex', roles: ['viewer', 'editor', 'admin'] }));
    expect((await api(`/v2/webhooks/${hookId}`, { token: otherAdmin })).status).toBe(404);
    expect((await api('/v2/webhooks', { method: 'POST', json: { url: `${receiver.base}/x`, events: [] } })).status).toBe(400);
    expect((await api('/v2/webhooks', { method: 'POST', json: { url: 'ftp://example.com/x', events: ['model.finished'] } })).status).toBe(
      400,
    );
    expect((await api('/v2/webhooks', { method: 'POST', json: { url: `${receiver.base}/x`, events: ['model.exploded'] } })).status).toBe(
      400,
    );
  });

  it('a model that finishes, a copy of it and its deletion reach the receiver signed, within seconds', async () => {
    const part = (await bracket()).mesh;
    const first = await svc.upload('hooks/bracket.stl', toStlBinary(part));
    const finished = await until(() => eventsOf('model.finished').find((e) => e.payload.data.model.id === first));
    expect(finished.payload.data.model).toMatchObject({ id: first, name: 'bracket.stl', filePath: 'hooks/bracket.stl', state: 'finished' });
    expect(finished.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    // The event's time is when the state was written; the receiver's clock is the same machine's.
    const latency = finished.at - Date.parse(finished.payload.timestamp);
    console.info(`webhook: model.finished received ${latency} ms after the event (budget 5,000 ms)`);

    const copy = await svc.upload('hooks/bracket-copy.stl', toStlBinary(applyToMesh(part, rotationZ(45))));
    const duplicate = await until(() => eventsOf('model.duplicate-found').find((e) => e.payload.data.model.id === copy));
    expect(duplicate.payload.data.duplicates).toEqual([
      { model: expect.objectContaining({ id: first, filePath: 'hooks/bracket.stl' }), matchPercentage: expect.any(Number) },
    ]);
    expect(duplicate.payload.data.duplicates![0]!.matchPercentage).toBeGreaterThanOrEqual(98);
    // The first model duplicates nothing that was there before it.
    expect(eventsOf('model.duplicate-found').some((e) => e.payload.data.model.id === first)).toBe(false);

    expect((await api(`/v2/models/${copy}`, { method: 'DELETE', token: svc.token })).status).toBe(204);
    await until(() => eventsOf('model.deleted').find((e) => e.payload.data.model.id === copy));

    // Asked for later: a duplicates report that is ready.
    expect(
      (await api(`/v2/webhooks/${hookId}`, { method: 'PATCH', json: { events: ['model.finished', 'duplicate-report.ready'] } })).status,
    ).toBe(200);
    const started = (await api('/v2/duplicate-reports', { method: 'POST', json: {}, token: svc.token })) as {
      body: { report: { id: string } };
    };
    const ready = await until(() =>
      eventsOf('duplicate-report.ready').find((e) => JSON.stringify(e.payload.data).includes(started.body.report.id)),
    );
    expect(ready.payload.data).toMatchObject({ report: { id: started.body.report.id, threshold: 98, groups: 0 } });

    // A body altered on the way, or signed with another secret, does not verify.
    const sample = receiver.received.find((r) => r.path === '/hooks')!;
    expect(() =>
      new Webhook(secret).verify(sample.body.replace('bracket', 'bracket2'), sample.headers as Record<string, string>),
    ).toThrow();
    // The log is written once the receiver has answered: wait until every delivery has its outcome.
    const logOf = async () => webhookDeliveryListResponseSchema.parse((await api(`/v2/webhooks/${hookId}/deliveries?perPage=100`)).body);
    let log = await logOf();
    for (let i = 0; i < 100 && log.deliveries.some((d) => d.status === 'pending'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = await logOf();
    }
    expect(log.deliveries.length).toBeGreaterThanOrEqual(4);
    expect(log.deliveries.every((d) => d.status === 'delivered' && d.attempts === 1 && d.responseStatus === 204)).toBe(true);
  }, 120_000);

  it('a receiver that fails is tried again with backoff; the log says how it went; a ping reaches an endpoint whatever its events', async () => {
    const created = createdWebhookResponseSchema.parse(
      (await api('/v2/webhooks', { method: 'POST', json: { url: `${receiver.base}/flaky`, events: ['duplicate-report.ready'] } })).body,
    );
    expect((await api(`/v2/webhooks/${created.webhook.id}/ping`, { method: 'POST' })).status).toBe(202);
    // Two 500s, then the third attempt is answered 204.
    await until(() => (receiver.received.filter((r) => r.path === '/flaky').length >= 3 ? true : undefined), 60_000);
    expect(eventsOf('ping', '/flaky', created.secret)).toHaveLength(3);
    const tries = receiver.received.filter((r) => r.path === '/flaky');
    expect(tries).toHaveLength(3);
    // The same message each time: one id, a body that verifies.
    expect(new Set(tries.map((t) => t.headers['webhook-id'])).size).toBe(1);
    expect(tries[2]!.at - tries[0]!.at).toBeGreaterThan(1500); // backoff, not a tight loop
    // The log is written after the receiver answered: wait for the third attempt's entry.
    let deliveries = webhookDeliveryListResponseSchema.parse((await api(`/v2/webhooks/${created.webhook.id}/deliveries`)).body).deliveries;
    for (let i = 0; i < 50 && deliveries[0]?.status !== 'delivered'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      deliveries = webhookDeliveryListResponseSchema.parse((await api(`/v2/webhooks/${created.webhook.id}/deliveries`)).body).deliveries;
    }
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ event: 'ping', status: 'delivered', attempts: 3, responseStatus: 204, error: null });

    // Turned off: nothing more goes out; deleted: gone with its log.
    expect((await api(`/v2/webhooks/${created.webhook.id}`, { method: 'PATCH', json: { enabled: false } })).body).toMatchObject({
      webhook: { enabled: false },
    });
    expect((await api(`/v2/webhooks/${created.webhook.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/v2/webhooks/${created.webhook.id}/deliveries`)).status).toBe(404);
  }, 90_000);
});

describe('webhook addresses on a deployment that does not allow private ones', () => {
  let t: TestService;
  let admin: string;
  beforeAll(async () => {
    t = await startTestService();
    admin = await t.tokenFor(await t.createUser({ tenantKey: 'acme', roles: ['viewer', 'editor', 'admin'] }));
  });
  afterAll(() => t?.stop());

  it('refuses loopback, private, link-local and unresolvable addresses at registration, with the reason', async () => {
    const register = async (url: string) => {
      const res = await t.api('/v2/webhooks', { method: 'POST', token: admin, json: { url, events: ['model.finished'] } });
      return { status: res.status, body: (await res.json()) as { error?: { message: string } } };
    };
    for (const [url, range] of [
      ['http://127.0.0.1:8080/x', 'loopback'],
      ['http://localhost/x', 'loopback'],
      ['http://10.1.2.3/x', 'private'],
      ['http://192.168.0.10/x', 'private'],
      ['http://169.254.169.254/latest/meta-data', 'linkLocal'],
      ['http://[::1]/x', 'loopback'],
      ['http://[::ffff:127.0.0.1]/x', 'loopback'],
      ['http://0.0.0.0/x', 'unspecified'],
      ['http://[::7f00:1]/x', 'ipv4Compatible'],
    ] as const) {
      const r = await register(url);
      expect(r.status, url).toBe(400);
      expect(r.body.error?.message, url).toContain(`${range} range`);
    }
    expect((await register('http://no-such-host.invalid/x')).body.error?.message).toContain('could not be resolved');
    expect((await register('https://user:pw@example.com/x')).status).toBe(400);
  });

  it('refuses them again at delivery: a literal address, or a name that resolves inside', async () => {
    const message = { id: 'msg_1', body: '{}' };
    const secret = `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}`;
    for (const url of ['http://127.0.0.1:9/x', 'http://localhost:9/x']) {
      const r = await postSigned({ url, secret }, message, { allowPrivate: false });
      expect(r, url).toMatchObject({ ok: false, status: null, error: expect.stringContaining('loopback range') });
    }
    expect(await addressProblem('http://localhost/x', true)).toBeNull();
  });

  it('gives up on a receiver that does not answer in time', async () => {
    // No answer for 3 s: the one deadline covers connecting, sending and the status line.
    const slow = http.createServer((_req, res) => {
      setTimeout(() => res.writeHead(204).end(), 3000).unref();
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/x`;
      const started = Date.now();
      const r = await postSigned(
        { url, secret: `whsec_${Buffer.from('k'.repeat(32)).toString('base64')}` },
        { id: 'm', body: '{}' },
        { allowPrivate: true, timeoutMs: 500 },
      );
      expect(r).toMatchObject({ ok: false, status: null, error: 'No answer within 0.5 s.' });
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      slow.closeAllConnections();
      await new Promise<void>((resolve) => slow.close(() => resolve()));
    }
  });
});
