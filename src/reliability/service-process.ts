// The real service as a separate process, started the way `npm start` starts it, so that the
// reliability suite can kill it with SIGKILL and read its memory from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The built service (npm run build:service), as deployments run it.
const main = path.join(root, 'dist/service/main.js');

export interface ServiceProcess {
  readonly baseUrl: string;
  readonly pid: number;
  /** The exit code once the process ended (null while it runs or when a signal ended it). */
  exitCode(): number | null;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  alive(): boolean;
  /** kill -9: no shutdown, no cleanup, as a power cut or the OOM killer would. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
  /** Resident set now, in bytes. */
  rss(): number;
  /** Forgets the peak so far (Linux clear_refs); false where that is not allowed. */
  resetPeak(): boolean;
  /** Highest resident set since start or the last reset, in bytes. */
  peak(): number;
}

function run(args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  // node directly (not through npm): the pid is the service itself.
  return spawn(process.execPath, [main, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `npm run service -- users add …` against a stopped service's data directory. */
export async function addUser(
  env: NodeJS.ProcessEnv,
  user: { email: string; password: string; tenant: string; roles: string },
): Promise<void> {
  const child = run(
    ['users', 'add', '--email', user.email, '--password', user.password, '--tenant', user.tenant, '--roles', user.roles],
    env,
  );
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`users add failed (${code}): ${out}`);
}

function statusField(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/** Starts the built service (`main.js start` or `api`) on `port` with `env` and waits until sign-in answers. */
export async function startServiceProcess(
  env: NodeJS.ProcessEnv & { PORT: string },
  role: 'start' | 'api' = 'start',
): Promise<ServiceProcess> {
  const baseUrl = `http://localhost:${env.PORT}`;
  return startProcess([role], env, baseUrl, () =>
    fetch(`${baseUrl}/oauth2/default/.well-known/openid-configuration`).then(
      (r) => r.ok,
      () => false,
    ),
  );
}

/** Starts the built `main.js worker` with `env`; `ready` says when it is taking jobs (for example its row in queue_workers). */
export function startWorkerProcess(env: NodeJS.ProcessEnv, ready: (pid: number) => Promise<boolean>): Promise<ServiceProcess> {
  return startProcess(['worker'], env, env.PORT ? `http://127.0.0.1:${env.PORT}` : '', ready);
}

async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  baseUrl: string,
  ready: (pid: number) => Promise<boolean>,
): Promise<ServiceProcess> {
  const child = run(args, env);
  let log = '';
  let exited = false;
  child.stdout?.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (log += c.toString()));
  const exit = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  const deadline = Date.now() + 240_000; // the first start builds the app
  for (;;) {
    if (exited) throw new Error(`${args[0]} exited while starting:\n${log}`);
    if (await ready(child.pid ?? 0)) break;
    if (Date.now() > deadline) throw new Error(`${args[0]} did not start:\n${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const pid = child.pid ?? 0;
  let sampled = 0;
  let canReset = false;
  // Sampling backs up VmHWM where clear_refs cannot be written.
  const sampler = setInterval(() => {
    if (!exited) sampled = Math.max(sampled, statusField(pid, 'VmRSS'));
  }, 20);
  sampler.unref();
  return {
    baseUrl,
    pid,
    output: () => log,
    alive: () => !exited,
    exitCode: () => child.exitCode,
    async kill9() {
      child.kill('SIGKILL');
      await exit;
      clearInterval(sampler);
    },
    async stop() {
      if (exited) return;
      child.kill('SIGTERM');
      await exit;
      clearInterval(sampler);
    },
    rss: () => statusField(pid, 'VmRSS'),
    resetPeak() {
      sampled = statusField(pid, 'VmRSS');
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, '5');
        canReset = true;
      } catch {
        canReset = false;
      }
      return canReset;
    },
    peak: () => Math.max(sampled, canReset ? statusField(pid, 'VmHWM') : 0),
  };
}
