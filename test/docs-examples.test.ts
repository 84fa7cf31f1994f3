/**
 * The README's shell examples run as written. The ```sh blocks of the sections a newcomer follows
 * in order (authentication, GraphQL, REST, safe writes, keeping a system in sync, roles, data in, webhooks) are run in one
 * bash process with `set -euo pipefail`, against a fresh server of the compiled build on a fresh
 * SQLite database (DATABASE_URL in the environment of both, so that `npm run client` writes the
 * server's database); the only rewrite is the server's port for 4000 in `localhost:4000`. A user
 * would see: no command fail; every answer the status the text says (2xx or 304, unless the
 * comment after the command starts with another status: `# 401 {...}`); and after a command
 * followed by an output comment showing JSON, output of that shape (the keys shown, the types of
 * the values; `…` stands for what is left out).
 *
 * Which command printed what: a DEBUG trap writes a marker with the script line before each
 * command of the shell itself (not inside functions or `$(...)`), so that each command's output
 * lies between two markers.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';
import { FLUSH_INTERVAL_MS } from '../src/observability/logger.ts';
import { ROOT, startService, type RunningService } from './support/process.ts';
import { type Block, outputComments, shapeMismatches, shellBlocks } from './support/doc-examples.ts';

const SECTIONS = [
  'Authentication: the whole flow',
  'GraphQL: a first query',
  'REST: the old interface, unchanged',
  'Safe writes',
  'Keeping another system in sync',
  'Giving each system only what it needs',
  'Bringing data in and keeping it clean',
  'Being called when data changes',
] as const;

const MARKER = '\x1e';
const PRELUDE = ['set -euo pipefail', `trap 'printf "\\n${MARKER}%s\\n" "$LINENO"' DEBUG`];

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const blocks = shellBlocks(readme, SECTIONS);
const comments = blocks.flatMap(outputComments);

/** The blocks as one script; `readmeLine[n]` is the README line of script line n (1-based). */
function script(blocks: Block[], host: string): { text: string; readmeLine: number[] } {
  const lines = [...PRELUDE];
  const readmeLine = [0, ...PRELUDE.map(() => 0)];
  for (const block of blocks) {
    for (const { line, text } of block.lines) {
      lines.push(text.replaceAll('localhost:4000', host));
      readmeLine.push(line);
    }
  }
  return { text: `${lines.join('\n')}\n`, readmeLine };
}

interface Run {
  code: number | null;
  stderr: string;
  /** What each command printed, in order: the README line it ran at, and its output. */
  outputs: { line: number; output: string }[];
}

function runBash(text: string, readmeLine: number[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'readme-sh-'));
  const file = join(dir, 'readme.sh');
  writeFileSync(file, text);
  return new Promise((resolve, reject) => {
    // A group of its own, so that a time-out ends what the examples started too (curl, npm, node).
    const child = spawn('bash', [file], { cwd: ROOT, env, detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      process.kill(-child.pid!, 'SIGKILL');
      reject(new Error(`the README's examples did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      const pieces = stdout.split(new RegExp(`\\n${MARKER}(\\d+)\\n`));
      const outputs: Run['outputs'] = [];
      for (let i = 1; i < pieces.length; i += 2)
        outputs.push({ line: readmeLine[Number(pieces[i])] ?? 0, output: pieces[i + 1]! });
      resolve({ code, stderr, outputs });
    });
  });
}

/** The environment of the shell: the user's, with the server's database and no other setting of the service. */
function shellEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete env[key];
  return { ...env, DATABASE_URL: databaseUrl };
}

const lineText = (line: number) => `README.md:${line}: ${readme.split('\n')[line - 1]?.trim()}`;

/** The JSON a command printed: the body after the headers of `curl -i`, or the whole output. */
function parsedOutput(output: string): unknown {
  const text = output.trim();
  const body = /^HTTP\/[\d.]+ \d{3}/.test(text) ? text.slice(text.search(/\r?\n\r?\n/)).trim() : text;
  return JSON.parse(body);
}

describe("README's shell examples", () => {
  let dir: string;
  let service: RunningService;
  let run: Run;
  let requests: { method: string; path: string; status: number }[];
  let errorLogs: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readme-'));
    const databaseUrl = `file:${join(dir, 'master-data.db')}`;
    // As "Being called when data changes" says to start it: its receiver listens on this machine.
    service = await startService({
      DATABASE_URL: databaseUrl,
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOWED_NETWORKS: '127.0.0.0/8',
    });
    const before = service.output().length;
    const { text, readmeLine } = script(blocks, `localhost:${new URL(service.baseUrl).port}`);
    // About 25 s on an idle machine of two cores; the bound is for one that runs other tests too.
    run = await runBash(text, readmeLine, shellEnv(databaseUrl), 150_000);
    // The service writes its log in blocks, at least every FLUSH_INTERVAL_MS: the last requests'
    // lines may come a moment after the script's last answer. Wait until a flush brings nothing more.
    const quiet = FLUSH_INTERVAL_MS + 500;
    for (let seen = -1, waited = 0; seen !== service.output().length && waited < 10_000; waited += quiet) {
      seen = service.output().length;
      await new Promise((resolve) => setTimeout(resolve, quiet));
    }
    const logs = service
      .output()
      .slice(before)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    requests = logs.filter((l) => l.msg === 'request') as unknown as typeof requests;
    errorLogs = logs.filter((l) => ['error', 'fatal'].includes(String(l.level))).map((l) => JSON.stringify(l));
  }, 200_000);

  afterAll(async () => {
    if (service) await service.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('are found in every section, with no placeholder left for the user to fill in', () => {
    expect(new Set(blocks.map((b) => b.section))).toEqual(new Set(SECTIONS));
    const placeholders = blocks
      .flatMap((b) => b.lines)
      .filter(({ text }) => !/^\s*#/.test(text) && /…|<[a-z ]+>/.test(text))
      .map(({ line }) => lineText(line));
    expect(placeholders).toEqual([]);
  });

  it('run to the end: no command fails', () => {
    const last = run.outputs.at(-1)?.line;
    expect(run.code, `bash exited with ${run.code} after ${last ? lineText(last) : 'no command'}\n${run.stderr}`).toBe(
      0,
    );
  });

  it('get the answers the README says: 2xx or 304, and only the errors it shows', () => {
    // Executed in order, so the errors the server logs come in the order the comments show them.
    const shown = comments.filter((c) => c.status && c.status >= 400).map((c) => `${c.status} (${lineText(c.line)})`);
    const answered = requests
      .filter((r) => !(r.status < 300 || r.status === 304))
      .map((r) => `${r.status} ${r.method} ${r.path}`);
    const status = (line: string) => line.slice(0, 3);
    expect(
      answered.map(status),
      `errors answered:\n${answered.join('\n')}\nerrors shown:\n${shown.join('\n')}`,
    ).toEqual(shown.map(status));
    expect(errorLogs).toEqual([]);
    expect(requests.length).toBeGreaterThan(20);
  });

  it('print what their output comments show', () => {
    const mismatches = comments.flatMap((comment) => {
      const ran = run.outputs.filter((o) => o.line >= comment.command.from && o.line <= comment.command.to);
      // A command that never ran (an earlier one failed) is the failure the test above reports.
      if (ran.length === 0) return [];
      const printed = ran.map((o) => o.output).join('');
      const where = lineText(comment.line);
      const problems: string[] = [];
      if (comment.json) {
        try {
          problems.push(...shapeMismatches(parsedOutput(printed), comment.json));
        } catch (error) {
          problems.push(`not JSON (${(error as Error).message}): ${JSON.stringify(printed.slice(0, 300))}`);
        }
      }
      if (comment.printed && printed.trim() !== comment.printed)
        problems.push(`printed ${JSON.stringify(printed.trim())}, the comment shows ${comment.printed}`);
      const events = printed
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice('data: '.length)) as unknown);
      comment.events.forEach((event, i) => {
        if (i >= events.length) problems.push(`event ${i + 1} shown, ${events.length} received`);
        else problems.push(...shapeMismatches(events[i], event, `event ${i + 1}`));
      });
      return problems.map((p) => `${where}\n    ${p}`);
    });
    expect(mismatches).toEqual([]);
    expect(comments.length).toBeGreaterThan(10);
  });

  it('answer no GraphQL errors where the README shows none', () => {
    // GraphQL answers errors with 200 when the client accepts only JSON: the status says nothing.
    const shown = comments.filter((c) => c.json?.kind === 'object' && c.json.members.some(([key]) => key === 'errors'));
    const unshown = run.outputs.filter(
      ({ line }) => !shown.some((c) => line >= c.command.from && line <= c.command.to),
    );
    const withErrors = unshown.flatMap(({ line, output }) =>
      output
        .split('\n')
        .map((l) => l.replace(/^data: /, '').trim())
        .filter((l) => l.startsWith('{') && l.includes('"errors"'))
        .filter((l) => {
          try {
            return 'errors' in (JSON.parse(l) as object);
          } catch {
            return false;
          }
        })
        .map((l) => `${lineText(line)}\n    ${l.slice(0, 300)}`),
    );
    expect(withErrors).toEqual([]);
  });
});
