/**
 * The servers under test, each a child process of the runner started with the same Node binary:
 * the PostGraphile peer (peer/postgraphile.mjs) and our server (src/main.ts, as production runs
 * it). Both expose `db_statements_total` on GET /metrics; memory is read from /proc/<pid>.
 */
import { createHash } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_DIR, ROOT_DIR, type Dataset } from './databases.ts';
import { PEER_TRIGGER_APPLICATION } from './peer-trigger.ts';
import { BENCH_ROLE, benchRoleFile } from './role.ts';

/** `baseline`: our server from another checkout of the project (`--baseline`). */
export type ServerKind = 'postgraphile' | 'postgraphile-trigger' | 'ours' | 'baseline';

export interface RunningServer {
  kind: ServerKind;
  dataset: Dataset;
  baseUrl: string;
  /** The server's own process (not a wrapper): its memory is what is measured. */
  pid: number;
  /** Headers every request to this server carries (ours: the bearer token). */
  headers: Record<string, string>;
  /** Ours: the bearer token of a client with the bench's restricted role (./role.ts). */
  roleHeaders?: Record<string, string>;
  /** Ours: registers GraphQL documents as the (admin) client's trusted documents (the `graphql#id` target). */
  register?(documents: string[]): Promise<void>;
  logFile: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  dataset: Dataset;
  /** Directory for the server's stdout and stderr. */
  logDir: string;
  poolSize: number;
  /** The checkout the `baseline` server runs from. */
  baselineDir?: string;
  /** Ours: more environment for the server (the fan-out case raises the subscription limits). */
  env?: Record<string, string>;
  /** Ours: the log file's name is `<dataset>-<label>.log` (default: the kind). */
  label?: string;
  /** Ours and the baseline: Node options besides the start script's (`--cpu-prof`, for flame graphs). */
  nodeOptions?: string[];
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for the child to take). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

function tail(file: string, lines = 15): string {
  if (!existsSync(file)) return '';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
}

/** Spawns `node <args>` with output to a log file; rejects if it exits before `ready` resolves. */
async function launch(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  logFile: string,
  ready: () => Promise<boolean>,
  cwd = ROOT_DIR,
): Promise<{ child: ChildProcess; stop: () => Promise<void> }> {
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited (${signal ?? code})`;
      resolve();
    }),
  );
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited) throw new Error(`${name} ${exited} while starting; ${logFile}:\n${tail(logFile)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready after 120 s; ${logFile}:\n${tail(logFile)}`);
    }
    if (await ready().catch(() => false)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const stop = async () => {
    if (exited) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exit;
    clearTimeout(timer);
  };
  return { child, stop };
}

/**
 * PostGraphile 5 on a PostgreSQL dataset, production mode, NODE_ENV=production. `trigger`: its
 * connections named so that the triggers of ./peer-trigger.ts fire for its updates.
 */
export async function startPostGraphile(
  { dataset, logDir, poolSize }: StartOptions,
  trigger = false,
): Promise<RunningServer> {
  if (dataset.provider !== 'postgresql') throw new Error('PostGraphile serves PostgreSQL only');
  const entry = join(BENCH_DIR, 'peer', 'postgraphile.mjs');
  if (!existsSync(join(BENCH_DIR, 'node_modules', 'postgraphile'))) {
    throw new Error('PostGraphile is not installed: run `npm --prefix bench ci` first');
  }
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const logFile = join(logDir, `${dataset.id}-postgraphile${trigger ? '-trigger' : ''}.log`);
  const url = new URL(dataset.url);
  if (trigger) url.searchParams.set('application_name', PEER_TRIGGER_APPLICATION);
  const { child, stop } = await launch(
    'PostGraphile',
    [
      '--require',
      join(BENCH_DIR, 'polyfill.cjs'),
      entry,
      '--database-url',
      url.toString(),
      '--port',
      String(port),
      '--pool-size',
      String(poolSize),
    ],
    { ...process.env, NODE_ENV: 'production' },
    logFile,
    async () => {
      const res = await fetch(`${baseUrl}/graphql`, {
        signal: AbortSignal.timeout(5000),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ __typename }' }),
      });
      return res.ok;
    },
  );
  return {
    kind: trigger ? 'postgraphile-trigger' : 'postgraphile',
    dataset,
    baseUrl,
    pid: child.pid!,
    headers: {},
    logFile,
    stop,
  };
}

/** Runs one of the project's CLIs (`node --import tsx <script> ...`) and returns its stdout. */
function runCli(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
      cwd: ROOT_DIR,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script} ${args[0]} exited with ${code}: ${err.trim()}`)),
    );
  });
}

/**
 * Our server as `npm start` runs it: the compiled build (dist/main.js, built by `npm ci` and
 * rebuilt here from the checkout's sources once per run, in well under a second), with the Node
 * options of the checkout's start script. A checkout from before the build existed (a baseline)
 * runs its sources through tsx, as it did then.
 */
function serverCommand(checkout: string, extraOptions: string[] = []): string[] {
  const pkg = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  if (!pkg.scripts.build) return [...extraOptions, '--import', 'tsx', 'src/main.ts'];
  // Once per checkout and run: every server of the run starts from the same sources.
  if (!built.has(checkout)) {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: checkout, stdio: 'inherit' });
    built.add(checkout);
  }
  const options = /\bnode((?:\s+--\S+)*)\s+dist\/main\.js/.exec(pkg.scripts.start ?? '')?.[1]?.trim();
  return [...(options ? options.split(/\s+/) : []), ...extraOptions, 'dist/main.js'];
}

/** The checkouts built in this run (serverCommand). */
const built = new Set<string>();

/**
 * Our server as production runs it: `node <the start script's options> dist/main.js` (what `npm
 * start` runs, without npm's process, so that the measured pid is the server), auth on with a real token from
 * the token endpoint (scopes read and write: W5 writes), logs at info (to a file), metrics on, no
 * demo data. The API client is created with the project's CLI for this run and revoked when the
 * server stops.
 */
export async function startOurs(
  { dataset, logDir, env: extraEnv, label, nodeOptions }: StartOptions,
  checkout = ROOT_DIR,
  kind: 'ours' | 'baseline' = 'ours',
): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: dataset.url,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SEED_DEMO_DATA: 'false',
    ...extraEnv,
  };
  const client = async (role: string) =>
    JSON.parse(
      await runCli(
        'src/auth/cli.ts',
        ['create', '--name', `bench-${role}-${Date.now()}`, '--scopes', 'read,write', '--role', role, '--json'],
        env,
      ),
    ) as { client_id: string; client_secret: string };
  const created = await client('admin');
  // This checkout's server also gets a client with a restricted role (the `+role` targets).
  let restricted: { client_id: string; client_secret: string } | undefined;
  if (kind === 'ours') {
    const file = join(logDir, 'bench-role.json');
    writeFileSync(file, JSON.stringify(benchRoleFile()));
    await runCli('src/permissions/cli.ts', ['apply', file], env);
    restricted = await client(BENCH_ROLE);
  }
  const revoke = () =>
    Promise.all(
      [created, restricted].flatMap((c) => (c ? [runCli('src/auth/cli.ts', ['revoke', c.client_id], env)] : [])),
    ).then(() => undefined);
  const logFile = join(logDir, `${dataset.id}-${label ?? kind}.log`);
  let launched: Awaited<ReturnType<typeof launch>>;
  try {
    const ready = async () => (await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(5000) })).ok;
    launched = await launch(`${kind} server`, serverCommand(checkout, nodeOptions), env, logFile, ready, checkout);
  } catch (error) {
    await revoke().catch(() => undefined);
    throw error;
  }
  const stop = async () => {
    await launched.stop();
    await revoke().catch((e: Error) => console.error(`could not revoke bench API client: ${e.message}`));
  };
  try {
    const bearer = async (c: { client_id: string; client_secret: string }) => {
      const res = await fetch(`${baseUrl}/oauth/token.php`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const token = (await res.json()) as { access_token?: string };
      if (!res.ok || !token.access_token)
        throw new Error(`token endpoint answered ${res.status}: ${JSON.stringify(token)}`);
      return { authorization: `Bearer ${token.access_token}` };
    };
    const headers = await bearer(created);
    const roleHeaders = restricted && (await bearer(restricted));
    const register = async (documents: string[]) => {
      const file = join(logDir, 'bench-documents.json');
      const byId = Object.fromEntries(
        documents.map((text) => [`sha256:${createHash('sha256').update(text).digest('hex')}`, text]),
      );
      writeFileSync(file, JSON.stringify(byId));
      await runCli('src/auth/cli.ts', ['documents', 'add', created.client_id, file], env);
    };
    return {
      kind,
      dataset,
      baseUrl,
      pid: launched.child.pid!,
      headers,
      ...(roleHeaders && { roleHeaders }),
      ...(kind === 'ours' && { register }),
      logFile,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Our server from another checkout of the project, on the same database. The database carries
 * this checkout's migrations, and a server refuses a database with migrations it does not know:
 * they are copied into the baseline's migration folders first (migrations only add, so an older
 * server runs on the newer database as it did on its own).
 */
function startBaseline(options: StartOptions): Promise<RunningServer> {
  const dir = options.baselineDir;
  if (!dir || !existsSync(join(dir, 'src', 'main.ts')))
    throw new Error(`--baseline ${dir}: not a checkout of this project`);
  if (!existsSync(join(dir, 'node_modules'))) throw new Error(`--baseline ${dir}: run npm ci there first`);
  for (const provider of ['sqlite', 'postgresql']) {
    cpSync(join(ROOT_DIR, 'prisma', provider, 'migrations'), join(dir, 'prisma', provider, 'migrations'), {
      recursive: true,
    });
  }
  return startOurs(options, dir, 'baseline');
}

export function startServer(kind: ServerKind, options: StartOptions): Promise<RunningServer> {
  mkdirSync(options.logDir, { recursive: true });
  if (kind === 'postgraphile' || kind === 'postgraphile-trigger')
    return startPostGraphile(options, kind === 'postgraphile-trigger');
  return kind === 'baseline' ? startBaseline(options) : startOurs(options);
}

/** A counter on GET /metrics: its name, and the labels a series must have to be counted. */
export interface CounterFilter {
  name: string;
  labels?: Record<string, string>;
}

/**
 * A counter from GET /metrics, summed over its series that carry the filter's labels; undefined
 * when the server shows no such series (a labelled counter has none until it is first counted).
 */
export async function counterValue(server: RunningServer, filter: CounterFilter): Promise<number | undefined> {
  const res = await fetch(`${server.baseUrl}/metrics`);
  if (!res.ok) throw new Error(`${server.kind}: GET /metrics answered ${res.status}`);
  const text = await res.text();
  let total: number | undefined;
  for (const match of text.matchAll(/^(\w+)(?:\{([^}]*)\})?\s+([0-9.e+-]+)\s*$/gm)) {
    if (match[1] !== filter.name) continue;
    const labels = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]),
    );
    if (Object.entries(filter.labels ?? {}).every(([name, value]) => labels[name] === value))
      total = (total ?? 0) + Number(match[3]);
  }
  return total;
}

/** `db_statements_total` from GET /metrics (summed over label sets, if any). */
export async function statementCount(server: RunningServer): Promise<number> {
  const total = await counterValue(server, { name: 'db_statements_total' });
  if (total === undefined) throw new Error(`${server.kind}: no db_statements_total in /metrics`);
  return total;
}

// ---------------------------------------------------------------------------------------------
// Memory of a server process (Linux /proc)
// ---------------------------------------------------------------------------------------------

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory of a process now, MB; undefined where /proc cannot be read. */
export function rssMb(pid: number): number | undefined {
  const kb = statusKb(pid, 'VmRSS');
  return kb === undefined ? undefined : kb / 1024;
}

let clockTicks: number | undefined;

/**
 * CPU time a process has used so far (all its threads), seconds, from /proc/<pid>/stat: in user
 * mode and in the kernel (system calls: on loopback, a socket write includes the receiver's
 * side of TCP); undefined where it cannot be read.
 */
export function cpuTimes(pid: number): { user: number; system: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    return { user: Number(fields[11]) / clockTicks, system: Number(fields[12]) / clockTicks };
  } catch {
    return undefined;
  }
}

/** CPU time a process has used so far (user + system), seconds; undefined where it cannot be read. */
export function cpuSeconds(pid: number): number | undefined {
  const times = cpuTimes(pid);
  return times && times.user + times.system;
}

/**
 * Peak resident memory of a process over a period. Resets the kernel's high-water mark (VmHWM)
 * at the start where allowed (writing 5 to /proc/<pid>/clear_refs), and samples VmRSS every
 * 100 ms as well, so that the peak is that of the period, not of the process's life.
 */
export function watchMemory(pid: number): { stop(): number | undefined } {
  let hwmReset = false;
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    hwmReset = true;
  } catch {
    // not Linux, or not allowed: sampling alone
  }
  let peak = statusKb(pid, 'VmRSS') ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, statusKb(pid, 'VmRSS') ?? 0);
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      if (hwmReset) peak = Math.max(peak, statusKb(pid, 'VmHWM') ?? 0);
      return peak > 0 ? peak / 1024 : undefined;
    },
  };
}

/** Our server at rest, as a fresh clone's `npm start` runs it. */
export interface IdleMemory {
  /** From spawn to the first ready answer, ms. */
  startMs: number;
  /** RSS 10 s and 30 s after it was ready, with no request in between, MB. */
  rss10sMb: number;
  rss30sMb: number;
  /** The kernel's high-water mark at 30 s (start-up included), MB. */
  peakMb: number;
}

/**
 * Starts our compiled server (what `npm start` execs) on the embedded default: an SQLite file,
 * demo data on. The first start seeds it and is stopped; the second is the one measured, idle.
 */
export async function measureIdle(logDir: string): Promise<IdleMemory> {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-idle-'));
  try {
    const command = serverCommand(ROOT_DIR);
    const start = async (label: string) => {
      const port = await freePort();
      const env = {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `file:${join(dir, 'master-data.db')}`,
      };
      const ready = async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).ok;
      const began = performance.now();
      const launched = await launch(label, command, env, join(logDir, `idle-${label}.log`), ready);
      return { ...launched, startMs: performance.now() - began };
    };
    await (await start('first-start')).stop();
    const server = await start('idle');
    try {
      const pid = server.child.pid!;
      await new Promise((r) => setTimeout(r, 10_000));
      const rss10sMb = rssMb(pid)!;
      await new Promise((r) => setTimeout(r, 20_000));
      return { startMs: server.startMs, rss10sMb, rss30sMb: rssMb(pid)!, peakMb: statusKb(pid, 'VmHWM')! / 1024 };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
