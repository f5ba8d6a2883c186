// A deployment on one machine, as an operator would run it on several: a throwaway PostgreSQL
// cluster (Debian's), an S3-compatible server (s3rver, npm registry) in this process, one API
// process (`main.ts api`) and worker processes (`main.ts worker`). For the scale test and bench.
import { readdirSync, readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import S3rver from 's3rver';
import { bracket, box, flange, plateWithHoles, toStlBinary } from '../geometry/testing/fixtures';
import { freePort } from '../service/testing/free-port';
import { signInWithPkce } from '../service/testing/oidc-flows';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../service/testing/postgres-server';
import { addUser, startServiceProcess, startWorkerProcess, type ServiceProcess } from '../reliability/service-process';
import { client } from '../reliability/workbench-client';

export const BUCKET = 'models';
const ann = { email: 'ann@acme.example.com', password: 'ann-password-1', tenant: 'acme', roles: 'viewer,editor' };

export interface Cluster {
  env: NodeJS.ProcessEnv & { PORT: string; S3_ENDPOINT: string };
  dataDir: string;
  postgres: ThrowawayPostgres;
  /** A connection to the service's database (tests read queue_workers and queue_leases). */
  db: pg.Pool;
  api: ServiceProcess;
  workers: ServiceProcess[];
  http: ReturnType<typeof client>;
  /** An editor's access token from a real PKCE sign-in. */
  token: string;
  /** The row a worker process registered (undefined until it did, or after it was reaped). */
  workerRow(pid: number): Promise<string | undefined>;
  startWorker(): Promise<ServiceProcess>;
  /** CPU seconds used so far by the API, the workers (alive or not, as last read) and PostgreSQL's processes. */
  cpuSeconds(): { api: number; workers: number[]; postgres: number };
  stop(): Promise<void>;
}

const TICKS = 100; // USER_HZ on Linux

function stat(pid: number): { ppid: number; cpu: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / TICKS };
  } catch {
    return undefined;
  }
}

/** The postmaster and all its children (backends come and go: finished ones are counted by the postmaster's cutime). */
function postgresCpu(postmaster: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const s = stat(pid);
    if (s && (pid === postmaster || s.ppid === postmaster)) total += s.cpu;
  }
  try {
    const text = readFileSync(`/proc/${postmaster}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    total += (Number(fields[13]) + Number(fields[14])) / TICKS; // cutime + cstime of exited backends
  } catch {
    // gone
  }
  return total;
}

/** `n` small STL parts of four kinds, each of its own size (scale test and bench). */
export async function scaleParts(n: number): Promise<{ name: string; bytes: Uint8Array }[]> {
  const out: { name: string; bytes: Uint8Array }[] = [];
  for (let i = 0; i < n; i++) {
    const k = i % 4;
    const part =
      k === 0
        ? await box([10 + i, 20 + (i % 7), 5 + (i % 11)])
        : k === 1
          ? await plateWithHoles({ length: 40 + i, width: 30 + (i % 9) })
          : k === 2
            ? await bracket({ size: 20 + (i % 40), depth: 10 + (i % 5) })
            : await flange({ diameter: 40 + (i % 50), bolts: 3 + (i % 6) });
    out.push({ name: `part-${String(i).padStart(3, '0')}.stl`, bytes: toStlBinary(part.mesh) });
  }
  return out;
}

export async function startCluster({ workers = 2, threads = 1 }: { workers?: number; threads?: number } = {}): Promise<Cluster> {
  const postgres = await startThrowawayPostgres();
  if (!postgres) throw new Error('needs PostgreSQL (Debian package postgresql; .ci/run installs it)');
  const db = new pg.Pool({ connectionString: postgres.url, max: 2 });
  const s3Root = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-scale-s3-'));
  const s3 = new S3rver({
    port: 0,
    address: '127.0.0.1',
    silent: true,
    directory: s3Root,
    configureBuckets: [{ name: BUCKET, configs: [] }],
  });
  const { port: s3Port } = (await s3.run()) as unknown as { port: number };
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gsw-scale-'));
  const env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATABASE_URL: postgres.url,
    BLOB_STORE: 's3',
    S3_BUCKET: BUCKET,
    S3_ENDPOINT: `http://127.0.0.1:${s3Port}`,
    S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  const workerRow = async (pid: number) =>
    (await db.query<{ id: string }>('select id from queue_workers where pid = $1', [pid]).catch(() => ({ rows: [] as { id: string }[] })))
      .rows[0]?.id;
  // Each worker answers health and metrics on a port of its own.
  const startWorker = async () =>
    startWorkerProcess(
      { ...env, PORT: String(await freePort()), WORKER_THREADS: String(threads) },
      async (pid) => (await workerRow(pid)) !== undefined,
    );
  const running: ServiceProcess[] = [];
  const lastCpu = new Map<number, number>();
  const cluster: Partial<Cluster> = {};
  const stop = async () => {
    await Promise.allSettled([cluster.api?.stop(), ...running.map((w) => w.stop())]);
    // pool.end() resolves once it has let its connections go, not once they have closed: one still
    // closing when PostgreSQL shuts down gets 57P01, and the pool reports it as an uncaught error.
    const open = db.totalCount;
    let closed = 0;
    const allClosed = new Promise<void>((resolve) => {
      if (open === 0) resolve();
      db.on('remove', () => ++closed >= open && resolve());
    });
    await db.end();
    await allClosed;
    await s3.close();
    await postgres.stop();
    for (const dir of [s3Root, dataDir]) await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    // All at the same moment on the fresh database: migrations and queue setup must not race.
    const [api, ...first] = await Promise.all([startServiceProcess(env, 'api'), ...Array.from({ length: workers }, startWorker)]);
    cluster.api = api;
    running.push(...first);
    await addUser(env, ann);
    const token = (await signInWithPkce(api.baseUrl, ann)).tokens.access_token;
    const postmaster = postgres.pid;
    const cpu = (p: ServiceProcess) => {
      const now = stat(p.pid)?.cpu;
      if (now !== undefined) lastCpu.set(p.pid, now);
      return lastCpu.get(p.pid) ?? 0;
    };
    return Object.assign(cluster, {
      env,
      dataDir,
      postgres,
      db,
      api,
      workers: running,
      http: client(api.baseUrl),
      token,
      workerRow,
      async startWorker() {
        const w = await startWorker();
        running.push(w);
        return w;
      },
      cpuSeconds: () => ({ api: cpu(api), workers: running.map(cpu), postgres: postgresCpu(postmaster) }),
      stop,
    }) as Cluster;
  } catch (error) {
    await stop();
    throw error;
  }
}
