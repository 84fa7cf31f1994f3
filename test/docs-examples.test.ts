/**
 * The shell examples of README.md and of the pages under docs/ run as written: every ```sh block
 * not marked `<!-- not run: reason -->` (test/docs-pages.test.ts checks the markers, and that no
 * example names an address of the service other than `$MDG_URL`). A page's blocks run in one bash
 * process with `set -euo pipefail`, each page in its own, one page after another, against one
 * fresh server of the compiled build on a fresh SQLite database: the README first, then each
 * guide with what the README's First requests leave (an admin client's `$ID`, `$SECRET` and
 * `$TOKEN`) and nothing else of it. The pages send their requests to
 * `$MDG_URL`, which the test sets to that server (no rewriting of the text); DATABASE_URL is in
 * the environment of both, so that `npm run client` writes the server's database. A user would
 * see: no command fail; every answer the status the text says (2xx or 304, unless the comment
 * after the command starts with another status: `# 401 {...}`); and after a command followed by
 * an output comment showing JSON, output of that shape (the keys shown, the types of the values;
 * `…` stands for what is left out).
 *
 * Which command printed what: a DEBUG trap writes a marker with the script line before each
 * command of the shell itself (not inside functions or `$(...)`), so that each command's output
 * lies between two markers. Which page made which request: before each page the test asks for
 * a path of its own, which the request log shows between the pages' requests.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';
import { FLUSH_INTERVAL_MS } from '../src/observability/logger.ts';
import {
  type ExamplePage,
  examplePages,
  FIRST_REQUESTS,
  lineText,
  outputComments,
  runBlocks,
  shapeMismatches,
} from './support/doc-examples.ts';
import { freePort } from './support/ports.ts';
import { ROOT, type RunningService, startService } from './support/process.ts';

const MARKER = '\x1e';
const PRELUDE = ['set -euo pipefail', `trap 'printf "\\n${MARKER}%s\\n" "$LINENO"' DEBUG`];
const pages = examplePages();
const runnable = pages.filter((page) => runBlocks(page).length > 0);

/** The page's runnable blocks as one script; `pageLine[n]` is the page line of script line n (1-based). */
function script(page: ExamplePage, epilogue: string[]): { text: string; pageLine: number[] } {
  const lines = [...PRELUDE];
  const pageLine = [0, ...PRELUDE.map(() => 0)];
  for (const { line, text } of runBlocks(page).flatMap((b) => b.lines)) {
    lines.push(text);
    pageLine.push(line);
  }
  lines.push(...epilogue);
  return { text: `${lines.join('\n')}\n`, pageLine };
}

interface Run {
  code: number | null;
  stderr: string;
  /** What each command printed, in order: the page line it ran at, and its output. */
  outputs: { line: number; output: string }[];
}

function runBash(page: ExamplePage, env: NodeJS.ProcessEnv, timeoutMs: number, epilogue: string[] = []): Promise<Run> {
  const { text, pageLine } = script(page, epilogue);
  const dir = mkdtempSync(join(tmpdir(), 'docs-sh-'));
  const file = join(dir, 'examples.sh');
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
      reject(new Error(`the examples of ${page.path} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // What a page left running when it failed half-way (a webhook receiver) ends with it.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group has ended already.
      }
      rmSync(dir, { recursive: true, force: true });
      const pieces = stdout.split(new RegExp(`\\n${MARKER}(\\d+)\\n`));
      const outputs: Run['outputs'] = [];
      for (let i = 1; i < pieces.length; i += 2)
        outputs.push({ line: pageLine[Number(pieces[i])] ?? 0, output: pieces[i + 1]! });
      resolve({ code, stderr, outputs });
    });
  });
}

/** The environment of the shell: the user's, with the server's address and database and no other setting of the service. */
function shellEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const key of CONFIG_VARIABLES) delete base[key];
  return { ...base, ...env };
}

/** The JSON a command printed: the body after the headers of `curl -i`, or the whole output. */
function parsedOutput(output: string): unknown {
  const text = output.trim();
  const body = /^HTTP\/[\d.]+ \d{3}/.test(text) ? text.slice(text.search(/\r?\n\r?\n/)).trim() : text;
  return JSON.parse(body);
}

interface LoggedRequest {
  method: string;
  path: string;
  status: number;
}

/** The path the test asks for before a page's examples, so that the log shows where they start. */
const pageMarker = (i: number) => `/docs-examples-page-${i}`;
const END = '/docs-examples-end';

describe('shell examples of the README and docs/', () => {
  let dir: string;
  let service: RunningService;
  const runs = new Map<string, Run>();
  const requests = new Map<string, LoggedRequest[]>();
  let errorLogs: string[];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'docs-examples-'));
    const databaseUrl = `file:${join(dir, 'master-data.db')}`;
    // As docs/guides/webhooks.md says to start it: its receiver listens on this machine.
    service = await startService({
      DATABASE_URL: databaseUrl,
      WEBHOOKS_ALLOW_HTTP: 'true',
      WEBHOOKS_ALLOWED_NETWORKS: '127.0.0.0/8',
    });
    const before = service.output().length;
    const env = shellEnv({
      DATABASE_URL: databaseUrl,
      MDG_URL: service.baseUrl,
      // The webhook guide's receiver: a free port, not its default 8787 (another run may hold it).
      RECEIVER_PORT: String(await freePort()),
    });
    // The README first: the guides start from what its First requests leave, and from nothing else.
    const left = join(dir, 'first-requests');
    const [readme, ...guides] = runnable;
    expect(readme?.path).toBe('README.md');
    await fetch(`${service.baseUrl}${pageMarker(0)}`);
    runs.set(readme!.path, await runBash(readme!, env, 120_000, [`declare -p ${FIRST_REQUESTS.join(' ')} > ${left}`]));
    // Missing when the README's examples failed: the guides then say what they lack, after its failure.
    const declared = existsSync(left) ? readFileSync(left, 'utf8') : '';
    const firstRequests = Object.fromEntries(
      FIRST_REQUESTS.flatMap((name) => {
        const value = declared.match(new RegExp(`^declare -\\S* ${name}="(.*)"$`, 'm'))?.[1];
        return value === undefined ? [] : [[name, value]];
      }),
    );
    for (const [i, page] of guides.entries()) {
      await fetch(`${service.baseUrl}${pageMarker(i + 1)}`);
      // A few seconds a page on an idle machine of two cores; the bound is for one that runs other tests too.
      runs.set(page.path, await runBash(page, { ...env, ...firstRequests }, 120_000));
    }
    // The service writes its log in blocks, at least every FLUSH_INTERVAL_MS: the last requests'
    // lines come a moment after the last answer. One more request, and its line, says all are in.
    await fetch(`${service.baseUrl}${END}`);
    for (
      let waited = 0;
      !service.output().includes(`"path":"${END}"`) && waited < 10 * FLUSH_INTERVAL_MS;
      waited += 100
    )
      await new Promise((resolve) => setTimeout(resolve, 100));
    const logs = service
      .output()
      .slice(before)
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    let current: LoggedRequest[] = [];
    for (const log of logs.filter((l) => l.msg === 'request') as unknown as LoggedRequest[]) {
      const marker = runnable.findIndex((_, i) => log.path === pageMarker(i));
      if (marker >= 0) requests.set(runnable[marker]!.path, (current = []));
      else if (log.path !== END) current.push(log);
    }
    errorLogs = logs.filter((l) => ['error', 'fatal'].includes(String(l.level))).map((l) => JSON.stringify(l));
  }, 900_000);

  afterAll(async () => {
    if (service) await service.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('log no error on the server', () => {
    expect(errorLogs).toEqual([]);
  });

  describe.each(runnable.map((page) => [page.path, page] as const))('%s', (path, page) => {
    const comments = runBlocks(page).flatMap(outputComments);

    it('runs to the end: no command fails', () => {
      const { code, outputs, stderr } = runs.get(path)!;
      const last = outputs.at(-1)?.line;
      expect(code, `bash exited with ${code} after ${last ? lineText(page, last) : 'no command'}\n${stderr}`).toBe(0);
    });

    it('gets the answers the page says: 2xx or 304, and only the errors it shows', () => {
      // Executed in order, so the errors the server logs come in the order the comments show them.
      const shown = comments
        .filter((c) => c.status && c.status >= 400)
        .map((c) => `${c.status} (${lineText(page, c.line)})`);
      const answered = (requests.get(path) ?? [])
        .filter((r) => !(r.status < 300 || r.status === 304))
        .map((r) => `${r.status} ${r.method} ${r.path}`);
      const status = (line: string) => line.slice(0, 3);
      expect(
        answered.map(status),
        `errors answered:\n${answered.join('\n')}\nerrors shown:\n${shown.join('\n')}`,
      ).toEqual(shown.map(status));
      expect(requests.get(path)?.length).toBeGreaterThan(0);
    });

    it('prints what its output comments show', () => {
      const { outputs } = runs.get(path)!;
      const mismatches = comments.flatMap((comment) => {
        const ran = outputs.filter((o) => o.line >= comment.command.from && o.line <= comment.command.to);
        // A command that never ran (an earlier one failed) is the failure the test above reports.
        if (ran.length === 0) return [];
        const printed = ran.map((o) => o.output).join('');
        const where = lineText(page, comment.line);
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
    });

    it('answers no GraphQL errors where the page shows none', () => {
      // GraphQL answers errors with 200 when the client accepts only JSON: the status says nothing.
      const shown = comments.filter(
        (c) => c.json?.kind === 'object' && c.json.members.some(([key]) => key === 'errors'),
      );
      const unshown = runs
        .get(path)!
        .outputs.filter(({ line }) => !shown.some((c) => line >= c.command.from && line <= c.command.to));
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
          .map((l) => `${lineText(page, line)}\n    ${l.slice(0, 300)}`),
      );
      expect(withErrors).toEqual([]);
    });
  });
});
