/**
 * PostgreSQL kept highly available as operators keep it: Patroni (Debian's `patroni`) managing a
 * primary and a synchronous standby, its leader lock in a real single-node etcd (Debian's
 * `etcd-server`), all on free loopback ports, data in a temporary directory. The failover test
 * (./failover.test.ts) starts it; its configuration is the example of docs/operations/failover.md.
 *
 * PostgreSQL refuses to run as root: under root Patroni runs as the `postgres` user (which runs
 * the server it starts), and the directory is given to that user. Patroni starts the postmaster
 * as a daemon of its own (its parent is init), so stopping Patroni does not stop it: `stop()`
 * ends both, and leaves nothing running.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../support/ports.ts';
import { postgresUserIds } from '../support/servers.ts';
import type { Tool } from '../support/tools.ts';

export const PATRONI: Tool = {
  name: 'patroni',
  package: 'patroni',
  path: process.env.TEST_PATRONI || '/usr/bin/patroni',
};
export const ETCD: Tool = { name: 'etcd', package: 'etcd-server', path: process.env.TEST_ETCD || '/usr/bin/etcd' };
/** The PostgreSQL binaries Patroni runs (initdb, pg_ctl, postgres, pg_basebackup, pg_rewind). */
export const POSTGRES_BIN = process.env.TEST_POSTGRES_BIN || '/usr/lib/postgresql/15/bin';
export const POSTGRES_SERVER: Tool = {
  name: 'postgres',
  package: 'postgresql-15',
  path: join(POSTGRES_BIN, 'postgres'),
};

/**
 * The database and its owner that the cluster's bootstrap creates (the service's user; the
 * superuser `postgres` is Patroni's own). Trusted from loopback, as the rest of the tests' servers.
 */
export const DATABASE = 'mdg';
export const DATABASE_USER = 'mdg';

/**
 * Patroni's timings, as short as its rules allow: the leader lock lives `ttl` seconds unless
 * renewed; each member runs its loop every `loop_wait` seconds; etcd and PostgreSQL are given
 * `retry_timeout` seconds before an operation counts as failed. Patroni wants loop_wait +
 * 2 * retry_timeout <= ttl, so that a leader cut off from etcd demotes itself before its lock
 * runs out and another takes it. A killed PostgreSQL is seen by its Patroni within a loop; a
 * whole member gone (Patroni with it) is seen by the others when its lock runs out, after `ttl`.
 */
export const TIMINGS = { ttl: 10, loop_wait: 1, retry_timeout: 4 };

export interface MemberAddress {
  name: string;
  /** PostgreSQL's port. */
  pgPort: number;
  /** Patroni's REST API port. */
  apiPort: number;
}

/**
 * One member's Patroni configuration (YAML). `bootstrap` is read once, by the member that
 * initialises the cluster; its `dcs` part is then the cluster's, kept in etcd, the same for every
 * member.
 */
export function patroniConfig(options: {
  scope: string;
  member: MemberAddress;
  etcd: string;
  /** This member's directory: its data directory is `data` in it. */
  dir: string;
  /** Where PostgreSQL's Unix socket goes. */
  socketDir: string;
  /** The script run once after the cluster is initialised (creates the service's user and database). */
  postBootstrap: string;
}): string {
  const { scope, member, etcd, dir, socketDir, postBootstrap } = options;
  const hba = ['local all all trust', 'host all all 127.0.0.1/32 trust', 'host replication all 127.0.0.1/32 trust'].map(
    (line) => `    - ${line}`,
  );
  return `scope: ${scope}
name: ${member.name}

restapi:
  listen: 127.0.0.1:${member.apiPort}
  connect_address: 127.0.0.1:${member.apiPort}

etcd3:
  hosts: ${etcd}

bootstrap:
  dcs:
    ttl: ${TIMINGS.ttl}
    loop_wait: ${TIMINGS.loop_wait}
    retry_timeout: ${TIMINGS.retry_timeout}
    maximum_lag_on_failover: 1048576
    # A commit is acknowledged once the synchronous standby has it on disk, and only that standby
    # may be promoted: a failover loses no acknowledged transaction.
    synchronous_mode: true
    # false: with the standby gone the primary goes on alone (writes are not refused), and no
    # failover is possible until a standby has caught up again. true refuses writes meanwhile.
    synchronous_mode_strict: false
    # A primary whose PostgreSQL died is failed over at once rather than restarted in place.
    primary_start_timeout: 0
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 100
        synchronous_commit: "on"
        wal_keep_size: 128MB
  initdb:
    - encoding: UTF8
    - locale: C.UTF-8
  # Everything on loopback, trusted: the test's, not production's.
  pg_hba:
${hba.join('\n')}
  post_bootstrap: ${postBootstrap}

postgresql:
  listen: 127.0.0.1:${member.pgPort}
  connect_address: 127.0.0.1:${member.pgPort}
  data_dir: ${join(dir, 'data')}
  bin_dir: ${POSTGRES_BIN}
  pgpass: ${join(dir, 'pgpass')}
  # A new replica is a base backup of the leader: without a fast checkpoint it waits for a spread
  # one (minutes after a write).
  basebackup:
    - checkpoint: fast
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: ${socketDir}
    shared_buffers: 32MB
  pg_hba:
${hba.join('\n')}

watchdog:
  mode: "off"
`;
}

/** The script of `post_bootstrap`: Patroni runs it once, with a superuser's connection URL. */
export function postBootstrapScript(): string {
  return `#!/bin/sh
set -e
"${join(POSTGRES_BIN, 'psql')}" -v ON_ERROR_STOP=1 -d "$1" <<'SQL'
CREATE ROLE ${DATABASE_USER} LOGIN;
CREATE DATABASE ${DATABASE} OWNER ${DATABASE_USER};
SQL
`;
}

export interface Member extends MemberAddress {
  /** Its data directory. */
  data: string;
}

/** A member as Patroni's `GET /cluster` describes it. */
export interface MemberState {
  name: string;
  role: 'leader' | 'sync_standby' | 'replica' | string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

export interface PatroniCluster {
  members: Member[];
  /** etcd's client URL. */
  etcd: string;
  /** The service's database, on `port` (HAProxy's): `postgresql://mdg@127.0.0.1:<port>/mdg`. */
  url(port: number): string;
  /** Each member's configuration, as written. */
  config(member: Member): string;
  /** The cluster as the first member whose REST API answers sees it; undefined when none answers. */
  state(): Promise<MemberState[] | undefined>;
  /** The member holding the leader lock with its PostgreSQL running, if any. */
  leader(): Promise<Member | undefined>;
  /** Polls `state()` every 100 ms until `done` holds for it; fails after `timeoutMs`. */
  waitFor(done: (members: MemberState[]) => boolean, what: string, timeoutMs?: number): Promise<MemberState[]>;
  /** SIGKILLs the member's postmaster (its backends end on their own); answers its pid. */
  killPostgres(member: Member): number;
  /** SIGKILLs the member's Patroni, then its postmaster and every server process: the machine gone. */
  killMember(member: Member): void;
  /** The last lines of every log (etcd's, each member's Patroni and PostgreSQL), for a failure. */
  logs(lines?: number): string;
  /** Ends every process it started, and removes its directory. */
  stop(): Promise<void>;
}

/** Starts etcd, then the members' Patroni (the first to start initialises the cluster, the others copy it). */
export async function startPatroniCluster({ size = 2, timeoutMs = 60_000 } = {}): Promise<PatroniCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-patroni-'));
  const owner = postgresUserIds();
  const own = (path: string) => {
    if (owner) chownSync(path, owner.uid, owner.gid);
  };
  own(dir);
  chmodSync(dir, 0o700);
  const children: ChildProcess[] = [];
  const patronis = new Map<string, ChildProcess>();
  const configs = new Map<string, string>();
  const logFiles: string[] = [];
  const members: Member[] = [];
  /** Every postmaster seen, with the shared memory it made (a SIGKILLed one leaves it behind). */
  const postmasters = new Map<number, SharedMemory>();
  const seen = (pid: number, member: Member) => {
    if (!postmasters.has(pid)) postmasters.set(pid, sharedMemoryOf(pid, member));
    return pid;
  };

  /** Spawns a process whose output goes to `log` (a file of the directory). */
  const run = (file: string, args: string[], log: string, asPostgres: boolean) => {
    const fd = openSync(log, 'a');
    if (asPostgres) own(log);
    logFiles.push(log);
    const env: NodeJS.ProcessEnv = {};
    // Nothing of this process's PostgreSQL or Patroni settings: the configuration file says it all.
    for (const [key, value] of Object.entries(process.env))
      if (!/^(PG|PATRONI_)/.test(key) && key !== 'HOME') env[key] = value;
    const child = spawn(file, args, {
      cwd: dir,
      env: { ...env, HOME: dir },
      stdio: ['ignore', fd, fd],
      ...(asPostgres ? owner : undefined),
    });
    closeSync(fd);
    children.push(child);
    return child;
  };

  const stop = async () => {
    for (const child of patronis.values()) await killAndWait(child);
    // Then whatever runs on the directory (postmasters, a base backup, a rewind), Patroni's own
    // daemons, found by their command line: also one it was starting as it was killed. SIGQUIT is
    // a postmaster's immediate shutdown (it ends its processes and removes its shared memory),
    // SIGKILL for the rest, and for all after 10 s.
    const ours = new Set(children.map((c) => c.pid));
    for (let round = 0; round < 3; round++) {
      const found = processesOn(dir).filter((pid) => !ours.has(pid));
      if (found.length === 0) break;
      for (const member of members) {
        const pid = postmasterOf(member);
        if (pid) seen(pid, member);
      }
      const servers = found.filter((pid) => postmasters.has(pid));
      const all = [...found, ...servers.flatMap(childrenOf)];
      for (const pid of found) signal(pid, postmasters.has(pid) ? 'SIGQUIT' : 'SIGKILL');
      if (!(await gone(all, 10_000))) {
        for (const pid of all) signal(pid, 'SIGKILL');
        await gone(all, 5000);
      }
    }
    for (const child of children) await killAndWait(child);
    // What a SIGKILLed postmaster left (its next start on the same directory would have removed it).
    for (const [pid, memory] of postmasters) removeSharedMemory(pid, memory);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [etcdClient, etcdPeer] = [await freePort(), await freePort()];
    const etcd = `http://127.0.0.1:${etcdClient}`;
    const peer = `http://127.0.0.1:${etcdPeer}`;
    const etcdChild = run(
      ETCD.path,
      [
        '--name=etcd1',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcd}`,
        `--advertise-client-urls=${etcd}`,
        `--listen-peer-urls=${peer}`,
        `--initial-advertise-peer-urls=${peer}`,
        `--initial-cluster=etcd1=${peer}`,
        '--initial-cluster-state=new',
        `--initial-cluster-token=${dir.split('/').at(-1)}`,
        '--logger=zap',
        '--log-outputs=stderr',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
      false,
    );
    await poll(
      async () => {
        if (etcdChild.exitCode !== null) throw new Error(`etcd exited with ${etcdChild.exitCode}`);
        const health = await fetch(`${etcd}/health`).then(
          (r) => r.json() as Promise<{ health?: string }>,
          () => undefined,
        );
        return health?.health === 'true';
      },
      'etcd to answer',
      15_000,
    );

    const postBootstrap = join(dir, 'post-bootstrap.sh');
    writeFileSync(postBootstrap, postBootstrapScript(), { mode: 0o755 });
    own(postBootstrap);
    const socketDir = join(dir, 'sockets');
    mkdirSync(socketDir, { mode: 0o700 });
    own(socketDir);
    for (let i = 1; i <= size; i++) {
      const name = `pg${i}`;
      const memberDir = join(dir, name);
      mkdirSync(memberDir, { mode: 0o700 });
      own(memberDir);
      const member = { name, pgPort: await freePort(), apiPort: await freePort(), data: join(memberDir, 'data') };
      members.push(member);
      const config = patroniConfig({
        scope: 'mdg',
        member,
        etcd: `127.0.0.1:${etcdClient}`,
        dir: memberDir,
        socketDir,
        postBootstrap,
      });
      const file = join(memberDir, 'patroni.yml');
      writeFileSync(file, config, { mode: 0o600 });
      own(file);
      configs.set(name, config);
      patronis.set(name, run(PATRONI.path, [file], join(memberDir, 'patroni.log'), true));
    }

    const state = async (): Promise<MemberState[] | undefined> => {
      for (const member of members) {
        const answer = await fetch(`http://127.0.0.1:${member.apiPort}/cluster`, {
          signal: AbortSignal.timeout(2000),
        }).then(
          (r) => (r.ok ? (r.json() as Promise<{ members: MemberState[] }>) : undefined),
          () => undefined,
        );
        if (answer) return answer.members;
      }
      return undefined;
    };
    const waitFor = async (done: (members: MemberState[]) => boolean, what: string, waitMs = 30_000) => {
      let last: MemberState[] | undefined;
      await poll(
        async () => {
          for (const [name, child] of patronis)
            if (child.exitCode !== null) throw new Error(`Patroni of ${name} exited with ${child.exitCode}`);
          last = await state();
          return last !== undefined && done(last);
        },
        () => `${what} (the cluster: ${JSON.stringify(last)})`,
        waitMs,
      );
      return last!;
    };
    const cluster: PatroniCluster = {
      members,
      etcd,
      url: (port) => `postgresql://${DATABASE_USER}@127.0.0.1:${port}/${DATABASE}`,
      config: (member) => configs.get(member.name)!,
      state,
      async leader() {
        const leader = (await state())?.find((m) => m.role === 'leader' && m.state === 'running');
        return leader && members.find((m) => m.name === leader.name);
      },
      waitFor,
      killPostgres(member) {
        const pid = postmasterOf(member);
        if (!pid) throw new Error(`${member.name} has no running postmaster`);
        signal(seen(pid, member), 'SIGKILL');
        return pid;
      },
      killMember(member) {
        patronis.get(member.name)?.kill('SIGKILL');
        const pid = postmasterOf(member);
        if (!pid) return;
        for (const process of [seen(pid, member), ...childrenOf(pid)]) signal(process, 'SIGKILL');
      },
      logs(lines = 40) {
        return logFiles
          .map((file) => {
            // Without Patroni's line of every loop that changed nothing.
            const text = existsSync(file)
              ? readFileSync(file, 'utf8')
                  .trimEnd()
                  .split('\n')
                  .filter((line) => !line.includes('INFO: no action. '))
              : [];
            return `--- ${file} (last ${lines} lines)\n${text.slice(-lines).join('\n')}`;
          })
          .join('\n');
      },
      stop,
    };
    // Every member running, one the leader and another its synchronous standby: the database
    // written only after the standby acknowledged it, before anything is asked of the cluster.
    await waitFor(
      (states) =>
        states.length === size &&
        states.every((m) => m.state === 'running' || m.state === 'streaming') &&
        states.some((m) => m.role === 'leader') &&
        states.some((m) => m.role === 'sync_standby'),
      `a leader and a synchronous standby among ${size} members`,
      timeoutMs,
    );
    return cluster;
  } catch (error) {
    const logs = logFiles
      .map((f) => `--- ${f}\n${existsSync(f) ? readFileSync(f, 'utf8').slice(-4000) : ''}`)
      .join('\n');
    await stop();
    throw new Error(`${(error as Error).message}\n${logs}`);
  }
}

/** The pid of the member's running postmaster (the first line of postmaster.pid), if any. */
function postmasterOf(member: Member): number | undefined {
  try {
    const pid = Number(readFileSync(join(member.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || !isRunning(pid)) return undefined;
    // A stale file may name a pid the system gave to another process since.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(member.data) ? pid : undefined;
  } catch {
    // No file (never started, or removed as it stopped), or the process ended meanwhile.
    return undefined;
  }
}

/** A postmaster's shared memory: its System V segment (key and id) and its /dev/shm segments. */
interface SharedMemory {
  key?: number;
  id?: number;
  files: string[];
}

/** What `pid`, the member's postmaster, and its processes have mapped now. */
function sharedMemoryOf(pid: number, member: Member): SharedMemory {
  const files = new Set<string>();
  for (const process of [pid, ...childrenOf(pid)]) {
    try {
      for (const [path] of readFileSync(`/proc/${process}/maps`, 'utf8').matchAll(/\/dev\/shm\/PostgreSQL\.\d+/g))
        files.add(path);
    } catch {
      // Ended meanwhile.
    }
  }
  // postmaster.pid's 7th line: the System V segment's key and id.
  let line = '';
  try {
    line = readFileSync(join(member.data, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '';
  } catch {
    // Gone meanwhile: nothing known of its segment.
  }
  const [, key, id] = /^\s*(\d+)\s+(\d+)/.exec(line) ?? [];
  return { key: key ? Number(key) : undefined, id: id ? Number(id) : undefined, files: [...files] };
}

/**
 * Removes what the postmaster `pid` (no longer running) left: its System V segment, if it is still
 * the one it made (same key and id, made by it) and nothing is attached; its /dev/shm segments.
 */
function removeSharedMemory(pid: number, memory: SharedMemory): void {
  for (const file of memory.files) rmSync(file, { force: true });
  if (memory.id === undefined || !existsSync('/proc/sysvipc/shm')) return;
  const rows = readFileSync('/proc/sysvipc/shm', 'utf8').trim().split('\n').slice(1);
  const left = rows
    .map((row) => row.trim().split(/\s+/).map(Number))
    // key shmid perms size cpid lpid nattch …
    .some(
      ([key, id, , , cpid, , attached]) => key === memory.key && id === memory.id && cpid === pid && attached === 0,
    );
  if (left) execFileSync('ipcrm', ['-m', String(memory.id)]);
}

/** The processes whose command line names a path under `dir`. */
function processesOn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`${dir}/`) && isRunning(Number(entry)))
        found.push(Number(entry));
    } catch {
      // Ended while listed.
    }
  }
  return found;
}

/** The processes whose parent is `pid` (a postmaster's server processes). */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Ended while listed.
    }
  }
  return found;
}

/** Whether `pid` is a live process (a zombie, ended but not yet reaped, is not). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

/** Whether every one of `pids` ended within `timeoutMs`. */
async function gone(pids: number[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isRunning)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

async function killAndWait(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function poll(check: () => Promise<boolean>, what: string | (() => string), timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
