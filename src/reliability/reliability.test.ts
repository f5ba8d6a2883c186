// The service tried as an attacker and as a crash would (npm run test:reliability): the real
// service as its own process on a throwaway data directory, two tenants, hostile files, kill -9
// during an upload and during ingestion, 100 uploads at once, brute force. Peak memory per
// hostile file is printed.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createdClientCredentialSchema } from '../contract/client-credentials';
import { matchKinds } from '../contract/matches';
import { isSettled, modelListResponseSchema, type Model } from '../contract/models';
import { box, sphere, to3mf, toStlBinary } from '../geometry/testing/fixtures';
import { hostileFiles } from '../service/testing/hostile-files';
import { beginSignIn, requestCredentialToken, signInWithPkce, submitSignIn } from '../service/testing/oidc-flows';
import { freePort } from '../service/testing/free-port';
import { addUser, startServiceProcess, type ServiceProcess } from './service-process';
import { client } from './workbench-client';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const ann = { email: 'ann@acme.example.com', password: 'ann-password-1', tenant: 'acme', roles: 'viewer,editor' };
const bob = { email: 'bob@globex.example.com', password: 'bob-password-1', tenant: 'globex', roles: 'viewer,editor' };

let dataDir: string;
let env: NodeJS.ProcessEnv & { PORT: string };
let svc: ServiceProcess;
let http: ReturnType<typeof client>;
let annToken: string;
let annIdToken: string;
let bobToken: string;
/** Every model created, to prove at the end that none was lost or left working. */
const created = { ann: [] as string[] };

async function restart() {
  svc = await startServiceProcess(env);
  http = client(svc.baseUrl);
}

async function stl(size: number): Promise<Uint8Array> {
  return toStlBinary((await box([size, size * 1.5, size * 2])).mesh);
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-reliability-'));
  env = { DATA_DIR: dataDir, PORT: String(await freePort()), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  await addUser(env, ann);
  await addUser(env, bob);
  await restart();
  const [a, b] = await Promise.all([signInWithPkce(svc.baseUrl, ann), signInWithPkce(svc.baseUrl, bob)]);
  annToken = a.tokens.access_token;
  annIdToken = a.tokens.id_token ?? '';
  bobToken = b.tokens.access_token;
}, 300_000);

afterAll(async () => {
  await svc?.stop();
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

describe('two tenants', () => {
  it('never see, change or match each other’s folders, models, files, images or credentials', async () => {
    const entries = await http.createModels(annToken, [{ filePath: 'Secret/box.stl' }, { filePath: 'Secret/part.3mf' }]);
    const [boxEntry, threeMfEntry] = entries as [(typeof entries)[0], (typeof entries)[0]];
    expect((await http.put(boxEntry, await stl(10))).status).toBe(200);
    expect((await http.put(threeMfEntry, to3mf((await box([5, 5, 5])).mesh))).status).toBe(200);
    created.ann.push(...entries.map((e) => e.model.id));
    const settled = await http.waitSettled(annToken, created.ann);
    expect(settled.map((m) => m.state)).toEqual(['finished', 'finished']);
    const model = boxEntry.model;
    const folderId = model.folderId;
    const key = (await (await http.api(annToken, '/v2/metadata-keys', { method: 'POST', json: { name: 'material' } })).json()) as {
      metadataKey: { id: number };
    };
    expect(
      (await http.api(annToken, `/v2/models/${model.id}/metadata/${key.metadataKey.id}`, { method: 'PUT', json: { value: 'steel' } }))
        .status,
    ).toBe(200);
    const image = (await (await http.api(annToken, '/v2/images', { method: 'POST', json: { filename: 'photo.png' } })).json()) as {
      image: { id: string };
    };
    const credential = createdClientCredentialSchema.parse(
      await (await http.api(annToken, '/client-credentials', { method: 'POST', json: { name: 'ci' } })).json(),
    ).clientCredentials;

    const attempts: [string, string, unknown?][] = [
      ['GET', `/v2/folders/${folderId}`],
      ['PATCH', `/v2/folders/${folderId}`, { name: 'mine now' }],
      ['DELETE', `/v2/folders/${folderId}`],
      ['GET', `/v2/folders/${folderId}/duplicates`],
      ['GET', `/v2/models/${model.id}`],
      ['DELETE', `/v2/models/${model.id}`],
      ['POST', `/v2/models/${model.id}/reprocess`],
      ['POST', `/v2/models/${model.id}/upload-complete`],
      ['GET', `/v2/models/${model.id}/viewer-file`],
      ['GET', `/v2/models/${model.id}/assembly-tree`],
      ['PUT', `/v2/models/${model.id}/metadata/${key.metadataKey.id}`, { value: 'paper' }],
      ['DELETE', `/v2/models/${model.id}/metadata/${key.metadataKey.id}`],
      ...matchKinds.map((kind): [string, string] => ['GET', `/v2/models/${model.id}/${kind}-matches?threshold=0`]),
      ['GET', `/v2/images/model-matches?id=${image.image.id}`],
      ['DELETE', `/client-credentials/${credential.clientId}`],
    ];
    for (const [method, pathname, json] of attempts) {
      const response = await http.api(bobToken, pathname, { method, json });
      expect({ method, pathname, status: response.status }).toEqual({ method, pathname, status: 404 });
      const body = await response.text();
      expect(body).not.toContain(model.name);
      expect(body).not.toContain('Secret');
    }
    // Lists and searches of the other tenant hold nothing of this one.
    const bobModels = modelListResponseSchema.parse(
      await (await http.api(bobToken, `/v2/models?filter=${encodeURIComponent(`id(in('${model.id}'))`)}`)).json(),
    );
    expect(bobModels.models).toEqual([]);
    expect(await (await http.api(bobToken, '/v2/folders')).text()).not.toContain('Secret');
    expect(await (await http.api(bobToken, '/client-credentials')).text()).not.toContain(credential.clientId);
    expect(await (await http.api(bobToken, '/v2/metadata-keys')).text()).not.toContain('material');
    // Naming the other tenant in the header is refused.
    expect((await http.api(bobToken, '/v2/folders', { headers: { 'x-tenant-id': 'acme' } })).status).toBe(403);
    // Nothing was changed by the attempts.
    const after = (await (await http.api(annToken, `/v2/models/${model.id}`)).json()) as { model: Model };
    expect(after.model).toMatchObject({ state: 'finished', metadata: [{ metadataKeyId: key.metadataKey.id, value: 'steel' }] });
    expect((await http.api(annToken, `/v2/folders/${folderId}`)).status).toBe(200);
  });
});

describe('forged tokens', () => {
  it('are refused with 401, whatever was changed', async () => {
    const [header, payload, signature] = annToken.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const encode = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const { kid } = decodeProtectedHeader(annToken);
    const stranger = await generateKeyPair('RS256');
    const forgeries: Record<string, string> = {
      'no token': '',
      garbage: 'not-a-token',
      'alg none': `${encode({ alg: 'none', typ: 'at+jwt' })}.${encode(claims)}.`,
      'tenant changed, signature kept': `${header}.${encode({ ...claims, tenant: 'globex' })}.${signature}`,
      'roles raised, signature kept': `${header}.${encode({ ...claims, roles: ['admin', 'editor', 'viewer'] })}.${signature}`,
      'another token’s signature': `${header}.${payload}.${bobToken.split('.')[2]}`,
      'signed by another key under the service’s key id': await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: kid ?? '', typ: 'at+jwt' })
        .sign(stranger.privateKey),
      'the ID token instead of an access token': annIdToken,
      'HS256 keyed with the public key': await (async () => {
        const jwks = (await (await fetch(`${svc.baseUrl}/oauth2/default/v1/keys`)).json()) as { keys: { n: string }[] };
        return new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256', kid: kid ?? '' })
          .sign(new TextEncoder().encode(jwks.keys[0]?.n ?? 'x'));
      })(),
    };
    for (const [name, token] of Object.entries(forgeries)) {
      const response = await fetch(`${svc.baseUrl}/v2/folders`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect({ name, status: response.status }).toEqual({ name, status: 401 });
    }
  });
});

describe('signed addresses', () => {
  it('cannot be altered: signature, expiry, model or file changed answer 403', async () => {
    const modelId = created.ann[0]!;
    const { viewerFile: url } = (await (await http.api(annToken, `/v2/models/${modelId}/viewer-file`)).json()) as { viewerFile: string };
    expect((await fetch(url)).status).toBe(200);
    const u = new URL(url);
    const variant = (change: (v: URL) => void) => {
      const v = new URL(u);
      change(v);
      return v.toString();
    };
    const own = created.ann[1]!;
    const tampered = {
      signature: variant((v) => v.searchParams.set('sig', `${(v.searchParams.get('sig') ?? '').slice(0, -2)}AA`)),
      expiry: variant((v) => v.searchParams.set('expires', String(Number(v.searchParams.get('expires')) + 3600))),
      model: variant((v) => (v.pathname = v.pathname.replace(modelId, own))),
      file: variant((v) => (v.pathname = v.pathname.replace('viewer.glb', 'thumbnail.png'))),
    };
    for (const [name, address] of Object.entries(tampered))
      expect({ name, status: (await fetch(address)).status }).toEqual({ name, status: 403 });

    const [entry] = await http.createModels(annToken, [{ filePath: 'Secret/tamper.stl' }]);
    created.ann.push(entry!.model.id);
    const upload = new URL(entry!.uploadUrl);
    upload.searchParams.set('sig', 'A'.repeat(43));
    expect((await fetch(upload, { method: 'PUT', headers: entry!.headers, body: new Uint8Array(await stl(3)) })).status).toBe(403);
    expect((await http.put(entry!, await stl(3))).status).toBe(200);
  });
});

describe('hostile files', () => {
  it('end failed with a plain reason; the service stays up and within 1 GiB of its idle memory', async () => {
    const corpus = await hostileFiles();
    const rows: string[] = [];
    for (const file of corpus) {
      const [entry] = await http.createModels(annToken, [{ filePath: `Hostile/${file.fileName}` }]);
      created.ann.push(entry!.model.id);
      const idle = svc.rss();
      svc.resetPeak();
      const put = await http.put(entry!, file.bytes);
      expect(put.status, file.name).toBe(200);
      const [model] = await http.waitSettled(annToken, [entry!.model.id]);
      const peak = svc.peak();
      rows.push(
        `${file.name.padEnd(66)} ${(file.bytes.byteLength / MiB).toFixed(2).padStart(7)} MiB  idle ${(idle / MiB).toFixed(0).padStart(5)} MiB  peak +${((peak - idle) / MiB).toFixed(0).padStart(4)} MiB  ${model!.state}: ${model!.stateReason}`,
      );
      expect(svc.alive(), `${file.name} took the service down:\n${svc.output()}`).toBe(true);
      expect(model!.state, file.name).toBe('failed');
      expect(model!.stateReason ?? '', file.name).toMatch(file.reason);
      expect(model!.stateReason ?? '', file.name).not.toMatch(/0x1fffffe8|RangeError|TypeError|at .*\.ts:\d+|undefined/);
      expect(peak - idle, `${file.name}: peak ${(peak - idle) / MiB} MiB above idle`).toBeLessThanOrEqual(GiB);
    }
    console.log(`hostile files, peak resident memory of the service above idle:\n${rows.join('\n')}`);
  });
});

describe('many uploads at once', () => {
  it('100 concurrent uploads all end finished; none stuck, none lost', async () => {
    const started = performance.now();
    const entries = await http.createModels(
      annToken,
      Array.from({ length: 100 }, (_, i) => ({ filePath: `Batch/part-${String(i).padStart(3, '0')}.stl` })),
    );
    created.ann.push(...entries.map((e) => e.model.id));
    const statuses = await Promise.all(entries.map(async (e, i) => (await http.put(e, await stl(5 + i))).status));
    expect(statuses.every((s) => s === 200)).toBe(true);
    // Not a time budget (bench:upload and bench:scale measure those): every model must end, none lost.
    const settled = await http.waitSettled(
      annToken,
      entries.map((e) => e.model.id),
      480_000,
    );
    expect(settled.filter((m) => m.state !== 'finished').map((m) => `${m.name}: ${m.state} ${m.stateReason}`)).toEqual([]);
    console.log(
      `100 concurrent uploads settled in ${((performance.now() - started) / 1000).toFixed(1)} s; service resident memory ${(svc.rss() / MiB).toFixed(0)} MiB`,
    );
  });
});

describe('kill -9', () => {
  it('during an upload: the same address can be used again after a restart, nothing partial is kept', async () => {
    const [entry] = await http.createModels(annToken, [{ filePath: 'Crash/cut.stl' }]);
    created.ann.push(entry!.model.id);
    const bytes = await stl(42);
    const half = bytes.subarray(0, bytes.length >> 1);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(half); // and then nothing more: the rest never comes before the crash
      },
    });
    const cut = fetch(entry!.uploadUrl, {
      method: 'PUT',
      headers: { ...entry!.headers, 'content-length': String(bytes.length) },
      body,
      duplex: 'half',
    } as RequestInit).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 1000));
    await svc.kill9();
    expect(await cut).toBeInstanceOf(Error);
    await restart();
    const waiting = (await (await http.api(annToken, `/v2/models/${entry!.model.id}`)).json()) as { model: Model };
    expect(waiting.model.state).toBe('incomplete-upload');
    expect((await http.put(entry!, bytes)).status).toBe(200);
    const [model] = await http.waitSettled(annToken, [entry!.model.id]);
    expect(model!.state).toBe('finished');
    expect(model!.facts?.triangles).toBe(12);
  });

  it('during ingestion: every model ends terminal after a restart, none stuck in processing', async () => {
    const big = toStlBinary((await sphere({ triangles: 60_000 })).mesh);
    const entries = await http.createModels(
      annToken,
      Array.from({ length: 8 }, (_, i) => ({ filePath: `Crash/sphere-${i}.stl` })),
    );
    created.ann.push(...entries.map((e) => e.model.id));
    await Promise.all(entries.map((e) => http.put(e, big)));
    // Kill while some are done and some still being worked on.
    const deadline = Date.now() + 120_000;
    for (;;) {
      const states = (
        await http.models(
          annToken,
          entries.map((e) => e.model.id),
        )
      ).map((m) => m.state);
      if (states.includes('finished') && states.includes('processing')) break;
      if (!states.includes('processing') || Date.now() > deadline)
        throw new Error(`could not catch ingestion mid-run: ${states.join(', ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    await svc.kill9();
    await restart();
    // Not a time budget (bench:upload and bench:scale measure those): every model must end, none lost.
    const settled = await http.waitSettled(
      annToken,
      entries.map((e) => e.model.id),
      480_000,
    );
    expect(settled.map((m) => m.state)).toEqual(entries.map(() => 'finished'));
  });
});

describe('brute force', () => {
  it('meets 429 with Retry-After at sign-in and at the token endpoint; ≤ 10 secret checks a minute', async () => {
    const signIns: number[] = [];
    for (let i = 0; i < 30; i++) {
      const { jar, page } = await beginSignIn(svc.baseUrl);
      signIns.push((await submitSignIn(jar, page, { email: ann.email, password: `guess-${i}` })).status);
    }
    const checked = signIns.filter((s) => s === 401).length;
    expect(checked).toBeLessThanOrEqual(10);
    expect(signIns.filter((s) => s === 429).length).toBe(30 - checked);
    // While blocked, even the right password is not checked.
    const { jar, page } = await beginSignIn(svc.baseUrl);
    const right = await submitSignIn(jar, page, ann);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await right.text()).toMatch(/Too many failed sign-ins\. Wait \d+ seconds/);
    // Another account from the same address is not locked out by it.
    expect((await signInWithPkce(svc.baseUrl, bob)).tokens.access_token).toBeTruthy();

    const credential = createdClientCredentialSchema.parse(
      await (await http.api(annToken, '/client-credentials', { method: 'POST', json: {} })).json(),
    ).clientCredentials;
    const tokens: number[] = [];
    for (let i = 0; i < 30; i++) tokens.push((await requestCredentialToken(svc.baseUrl, credential.clientId, `guess-${i}`)).status);
    const secretChecks = tokens.filter((s) => s === 401).length;
    expect(secretChecks).toBeLessThanOrEqual(10);
    expect(tokens.filter((s) => s === 429).length).toBe(30 - secretChecks);
    console.log(`brute force: ${checked} of 30 passwords and ${secretChecks} of 30 client secrets were checked; the rest answered 429`);
  });
});

describe('in the end', () => {
  it('every model either tenant created is there and settled; the service never went down on its own', async () => {
    expect(svc.alive()).toBe(true);
    const models = await http.models(annToken, created.ann);
    expect(models.length).toBe(created.ann.length);
    expect(models.filter((m) => !isSettled(m.state)).map((m) => `${m.name}: ${m.state}`)).toEqual([]);
  });
});

describe('a container stop', () => {
  it('SIGTERM to `npm run service -- start` closes the service and exits 0 within 30 s, leaving no process behind', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-sigterm-'));
    const port = String(await freePort());
    const npm = spawn('npm', ['run', 'service', '--', 'start'], {
      cwd: process.cwd(),
      env: { ...process.env, DATA_DIR: dir, PORT: port, HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 240_000;
      while (
        !(await fetch(`http://localhost:${port}/healthz`).then(
          (r) => r.ok,
          () => false,
        ))
      ) {
        if (Date.now() > deadline) throw new Error('the service did not start');
        await new Promise((r) => setTimeout(r, 250));
      }
      const sent = Date.now();
      npm.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000))]);
      expect({ code, withinMs: Date.now() - sent < 30_000 }).toEqual({ code: 0, withinMs: true });
      // Nothing answers on the port any more: the service itself stopped, not only npm.
      await new Promise((r) => setTimeout(r, 500));
      expect(
        await fetch(`http://localhost:${port}/healthz`).then(
          () => 'answered',
          () => 'closed',
        ),
      ).toBe('closed');
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
