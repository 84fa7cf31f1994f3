/** Runs the service (or a script) as a real process, as a user would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONFIG_VARIABLES } from '../../src/config.ts';
import { basic } from './oauth.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Environment for a child: the parent's, minus anything that would configure the service. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete base[key];
  return { ...base, ...env };
}

/**
 * What node runs for `script`: a command line's source as the npm scripts run it, compiled
 * (`src/auth/cli.ts`: `dist/auth/cli.js`, which test/support/global-setup.ts builds before the
 * suite; half a second less a run than compiling the TypeScript at start); JavaScript as it is.
 */
function compiled(script: string): string {
  if (script.endsWith('.js')) return script;
  const match = /^src\/(.+)\.ts$/.exec(script);
  if (!match) throw new Error(`${script} is neither JavaScript nor a source of the build`);
  return `dist/${match[1]}.js`;
}

export function runScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--enable-source-maps', compiled(script), ...args], {
      cwd: ROOT,
      env: childEnv(env),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningService {
  child: ChildProcess;
  baseUrl: string;
  /** Log lines (stdout) so far. */
  output(): string;
  /** Sends a signal and resolves with the exit code and the time it took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

/**
 * Starts the service on a free port and resolves once it logs that it listens: the compiled
 * `dist/main.js` directly, or with `viaNpm` through `npm start`, the README's run command (signals
 * then go to npm); from the project, or from `cwd` (another install of it).
 */
export function startService(
  env: Record<string, string>,
  { timeoutMs = 60_000, viaNpm = false, cwd = ROOT } = {},
): Promise<RunningService> {
  return new Promise((resolve, reject) => {
    // As `npm start` runs it: the compiled build (test/support/global-setup.ts builds it from the
    // sources before the suite), one process.
    const [command, args] = viaNpm ? ['npm', ['start']] : [process.execPath, ['dist/main.js']];
    const child = spawn(command, args, { cwd, env: childEnv({ PORT: '0', HOST: '127.0.0.1', ...env }) });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`service did not start in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code}\n${stdout}\n${stderr}`));
    });
    let started = false;
    child.stdout.on('data', (d) => {
      stdout += d;
      const url = stdout.match(/"url":"(http:\/\/[^"]+)"/)?.[1];
      if (url && !started) {
        started = true;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({
          child,
          baseUrl: url.replace('localhost', '127.0.0.1'),
          output: () => stdout,
          stop: (signal = 'SIGTERM') =>
            new Promise((done) => {
              const started = Date.now();
              child.once('exit', (code) => done({ code, ms: Date.now() - started }));
              child.kill(signal);
            }),
        });
      }
    });
  });
}

/** An access token of the demo client a first start printed, taken over HTTP as a newcomer would. */
export async function demoClientToken(service: RunningService): Promise<string> {
  const printed = service.output();
  const id = printed.match(/client_id: +(\S+)/)![1]!;
  const secret = printed.match(/client_secret: +(\S+)/)![1]!;
  const answer = await fetch(`${service.baseUrl}/oauth/token.php`, {
    method: 'POST',
    headers: { Authorization: basic(id, secret), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}
