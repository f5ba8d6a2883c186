import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port';

export interface ThrowawayPostgres {
  url: string;
  /** The postmaster's process id (its backends are its children). */
  pid: number;
  stop(): Promise<void>;
}

/** Where initdb is: on PATH, else Debian's /usr/lib/postgresql/<version>/bin. */
export function findPostgresBin(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, 'initdb');
    if (dir && fs.existsSync(candidate)) return path.dirname(fs.realpathSync(candidate));
  }
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const bin = path.join(root, version, 'bin');
    if (fs.existsSync(path.join(bin, 'initdb'))) return bin;
  }
  return undefined;
}

/**
 * PostgreSQL refuses to run as root; as root, its programs run as the `postgres` system user.
 * (spawn's uid/gid rather than runuser: postgres is then our direct child and stops on our signal.)
 */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const user = { uid: id('-u'), gid: id('-g') };
  if (!Number.isInteger(user.uid) || user.uid <= 0)
    throw new Error('running as root needs a "postgres" system user (Debian package postgresql)');
  return user;
}

/**
 * A PostgreSQL cluster in a temp dir on a free port, with a fresh database, for tests that must
 * run against the real server. Returns undefined when PostgreSQL is not installed.
 */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres | undefined> {
  const bin = findPostgresBin();
  if (!bin) return undefined;

  const user = postgresUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gsw-pg-'));
  const dataDir = path.join(dir, 'data');
  if (user) fs.chownSync(dir, user.uid, user.gid);
  const asUser = { cwd: dir, ...(user ?? {}) };
  const run = (command: string, args: string[]) => {
    const result = spawnSync(path.join(bin, command), args, { ...asUser, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout || result.error}`);
  };
  try {
    run('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--locale=C', '--no-sync']);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const port = await freePort();
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-h',
    '127.0.0.1',
    '-k',
    dir,
    // a throwaway cluster needs no durability
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
  ];
  const server: ChildProcess = spawn(path.join(bin, 'postgres'), args, { ...asUser, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  server.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));

  const stop = async () => {
    if (server.exitCode === null) {
      server.kill('SIGINT'); // fast shutdown
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };

  try {
    const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
    await waitForConnection(
      adminUrl,
      () => server.exitCode !== null,
      () => stderr,
    );
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    await client.query('CREATE DATABASE gsw_test');
    await client.end();
    return { url: `postgres://postgres@127.0.0.1:${port}/gsw_test`, pid: server.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function waitForConnection(url: string, hasExited: () => boolean, log: () => string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (error) {
      await client.end().catch(() => {});
      if (hasExited() || Date.now() > deadline) throw new Error(`PostgreSQL did not start: ${log()}`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
