/**
 * What the tests that start real servers of their own (PgBouncer, HAProxy, a PostgreSQL standby)
 * share: who they run as, where they listen, and how they are stopped.
 */
import { type ChildProcess, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

/**
 * The `postgres` user's ids when this process is root (PgBouncer and PostgreSQL refuse to run as
 * root); undefined otherwise (they run as this user).
 */
export function postgresUserIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
  };
}

/** `url` with its host and port replaced by a server of the test's on loopback. */
export function onLoopbackPort(url: string, port: number): string {
  const moved = new URL(url);
  moved.hostname = '127.0.0.1';
  moved.port = String(port);
  return moved.toString();
}

/** Stops `child` with `signal` (if it still runs), waits for it to exit, and removes its directory. */
export async function stopAndRemove(child: ChildProcess, signal: NodeJS.Signals, dir: string): Promise<void> {
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
