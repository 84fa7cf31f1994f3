/**
 * Reading the shell examples of a Markdown page: its ```sh blocks, those marked as not run and
 * why, the output comments after a command (`# {"access_token":"mda_…",...}`, `# 401 {...}`,
 * SSE's `# data: {...}`), and the shape such a comment shows, compared with what a command printed.
 */
import { markdownPages, readPage } from './markdown.ts';

export interface Block {
  page: string;
  /** Page line (1-based) of the opening fence. */
  line: number;
  /** Page line (1-based) of each line of the block. */
  lines: { line: number; text: string }[];
  /**
   * The reason given by a `<!-- not run: reason -->` comment on the line before the block (blank
   * lines between allowed): a block that cannot run in a test (it installs, starts a database
   * cluster, runs the suite). Empty when the marker gives none.
   */
  notRun?: string;
}

const NOT_RUN = /^\s*<!--\s*not run\b:?(.*?)-->\s*$/;

/** The ```sh (or bash, shell) blocks of a page, in order; fences may be indented (in a list). */
export function shellBlocks(page: string, markdown: string): { blocks: Block[]; strayMarkers: number[] } {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const strayMarkers: number[] = [];
  let marker: { line: number; reason: string } | undefined;
  let current: (Block & { indent: number }) | undefined;
  let inOtherBlock = false;
  lines.forEach((text, i) => {
    if (current) {
      if (/^\s*```\s*$/.test(text)) {
        const { indent: _, ...block } = current;
        blocks.push(block);
        current = undefined;
      } else current.lines.push({ line: i + 1, text: text.slice(Math.min(current.indent, text.search(/\S|$/))) });
      return;
    }
    if (inOtherBlock) {
      if (/^\s*```\s*$/.test(text)) inOtherBlock = false;
      return;
    }
    const open = text.match(/^(\s*)```(\S*)\s*$/);
    if (open) {
      if (['sh', 'bash', 'shell'].includes(open[2]!)) {
        current = { page, line: i + 1, lines: [], indent: open[1]!.length };
        if (marker) current.notRun = marker.reason;
      } else {
        if (marker) strayMarkers.push(marker.line);
        inOtherBlock = true;
      }
      marker = undefined;
      return;
    }
    const said = text.match(NOT_RUN);
    if (said) {
      if (marker) strayMarkers.push(marker.line);
      marker = { line: i + 1, reason: said[1]!.trim() };
    } else if (text.trim() !== '' && marker) {
      strayMarkers.push(marker.line);
      marker = undefined;
    }
  });
  if (marker) strayMarkers.push(marker.line);
  return { blocks, strayMarkers };
}

/** The one place an address may be written in an example that runs: the default of `$MDG_URL`. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: shell, not a template
export const MDG_URL_DEFAULT = 'export MDG_URL=${MDG_URL:-http://localhost:4000}';

export interface ExamplePage {
  path: string;
  /** The page's lines. */
  text: string[];
  blocks: Block[];
  strayMarkers: number[];
}

export function examplePage(path: string, markdown: string): ExamplePage {
  return { path, text: markdown.split('\n'), ...shellBlocks(path, markdown) };
}

/** README.md and the pages under docs/, with their shell blocks. */
export const examplePages = () => markdownPages().map((path) => examplePage(path, readPage(path)));

/** The blocks of a page that run: every shell block not marked `not run`. */
export const runBlocks = (page: ExamplePage) => page.blocks.filter((b) => b.notRun === undefined);

export const lineText = (page: ExamplePage, line: number) => `${page.path}:${line}: ${page.text[line - 1]?.trim()}`;

/** Shell blocks marked `not run` without a reason, and markers with no shell block after them. */
export function unexplainedBlocks(page: ExamplePage): string[] {
  return [
    ...page.blocks.filter((b) => b.notRun === '').map((b) => `${lineText(page, b.line)}: not run, without a reason`),
    ...page.strayMarkers.map((line) => `${lineText(page, line)}: a "not run" marker with no shell block after it`),
  ];
}

/**
 * Commands of blocks that run which a user would have to edit (a placeholder: `…`, `<name>`), or
 * which name an address of the service instead of `$MDG_URL`.
 */
export function unrunnableLines(page: ExamplePage): string[] {
  return runBlocks(page)
    .flatMap((b) => b.lines)
    .filter(({ text }) => !/^\s*#/.test(text))
    .flatMap(({ line, text }) => [
      ...(/…|<[a-z ]+>/.test(text) ? [`${lineText(page, line)}: a placeholder`] : []),
      ...(/localhost:\d|127\.0\.0\.1:\d/.test(text.replace(MDG_URL_DEFAULT, ''))
        ? [`${lineText(page, line)}: a fixed address (use "$MDG_URL")`]
        : []),
    ]);
}

/** The first use of `$MDG_URL` in a page's blocks that run, when the page has not set it before. */
export function mdgUrlUnset(page: ExamplePage): string[] {
  const lines = runBlocks(page).flatMap((b) => b.lines);
  const set = lines.findIndex(({ text }) => text.trim() === MDG_URL_DEFAULT);
  const used = lines.findIndex(({ text }) => !/^\s*#/.test(text) && text.includes('$MDG_URL'));
  return used >= 0 && (set < 0 || set > used) ? [`${lineText(page, lines[used]!.line)}: $MDG_URL is not set yet`] : [];
}

/** What the README's First requests leave for the guides: an admin client's id, secret and token. */
export const FIRST_REQUESTS = ['ID', 'SECRET', 'TOKEN'] as const;

/**
 * Where a page uses a variable the README's First requests leave (`$ID`, `$SECRET`, `$TOKEN`)
 * before it sets it and without checking first that it is there (`: "${TOKEN:?...}"`): a reader who
 * came to the page directly would send an empty token.
 */
export function uncheckedFirstRequests(page: ExamplePage, names: readonly string[] = FIRST_REQUESTS): string[] {
  const lines = runBlocks(page)
    .flatMap((b) => b.lines)
    .filter(({ text }) => !/^\s*#/.test(text));
  return names.flatMap((name) => {
    const checked = lines.findIndex(({ text }) => text.includes(`\${${name}:?`));
    const set = lines.findIndex(({ text }) => new RegExp(`(^|[\\s;(])${name}=`).test(text));
    const used = lines.findIndex(
      ({ text }) => !text.includes(`\${${name}:?`) && new RegExp(`\\$\\{?${name}\\b`).test(text),
    );
    const first = (i: number) => (i < 0 ? Number.POSITIVE_INFINITY : i);
    return used >= 0 && first(set) > used && first(checked) > used
      ? [`${lineText(page, lines[used]!.line)}: $${name} is used before it is set or checked`]
      : [];
  });
}

/** What a comment right after a command says it prints. */
export interface OutputComment {
  /** Page line of the comment's first line. */
  line: number;
  /** Page lines of the command the comment follows: the lines above it up to a blank line or comment. */
  command: { from: number; to: number };
  /** An HTTP status written before the JSON (`# 401 {...}`): the answer the command gets. */
  status?: number;
  /** A status code alone (`# 200`): what the command prints, e.g. with `curl -w '%{http_code}'`. */
  printed?: string;
  /** The JSON shown (`# {...}`, possibly over several comment lines), as a shape. */
  json?: Shape;
  /** The `data:` lines of Server-Sent Events shown (`# data: {...}`). */
  events: Shape[];
}

const isComment = (text: string) => /^\s*#/.test(text);
const uncomment = (text: string) => text.replace(/^\s*# ?/, '');

/** The output comments of a block: comment runs that start right below a command line. */
export function outputComments(block: Block): OutputComment[] {
  const found: OutputComment[] = [];
  const { lines } = block;
  for (let i = 1; i < lines.length; i++) {
    const above = lines[i - 1]!.text;
    if (!isComment(lines[i]!.text) || isComment(above) || above.trim() === '') continue;
    let from = i - 1;
    while (from > 0 && !isComment(lines[from - 1]!.text) && lines[from - 1]!.text.trim() !== '') from--;
    let to = i;
    while (to + 1 < lines.length && isComment(lines[to + 1]!.text)) to++;
    const run = lines.slice(i, to + 1).map((l) => uncomment(l.text));
    const comment: OutputComment = {
      line: lines[i]!.line,
      command: { from: lines[from]!.line, to: lines[i - 1]!.line },
      events: run.filter((t) => t.startsWith('data: ')).map((t) => parseShape(t.slice('data: '.length)).shape),
    };
    const first = run[0]!.match(/^(?:(\d{3})\s+)?(?=[[{"])/);
    if (first) {
      if (first[1]) comment.status = Number(first[1]);
      comment.json = parseShape(run.join('\n').slice(first[0].length)).shape;
    }
    if (/^\d{3}$/.test(run[0]!.trim())) comment.printed = run[0]!.trim();
    if (comment.json || comment.printed || comment.events.length > 0) found.push(comment);
  }
  return found;
}

/**
 * The shape of a JSON value as a comment shows it: JSON where `…` (or `...`) stands for members
 * or elements left out, or for a value of any type.
 */
export type Shape =
  | { kind: 'any' }
  | { kind: 'string' | 'number' | 'boolean' | 'null' }
  | { kind: 'object'; members: [string, Shape][]; open: boolean }
  | { kind: 'array'; items: Shape[]; open: boolean };

/** Parses one value from the start of `text`; what follows it (prose) is left. */
export function parseShape(text: string): { shape: Shape; rest: string } {
  let at = 0;
  const fail = (what: string): never => {
    throw new Error(`output comment: ${what} at ${JSON.stringify(text.slice(at, at + 30))} in ${text}`);
  };
  const space = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const elision = () => {
    space();
    for (const token of ['…', '...']) {
      if (text.startsWith(token, at)) {
        at += token.length;
        return true;
      }
    }
    return false;
  };
  const string = (): string => {
    const match = text.slice(at).match(/^"(?:[^"\\]|\\.)*"/);
    if (!match) return fail('a string');
    at += match[0].length;
    return JSON.parse(match[0]) as string;
  };
  const list = <T>(close: string, item: () => T): { items: T[]; open: boolean } => {
    const items: T[] = [];
    let open = false;
    at++;
    for (;;) {
      space();
      if (text[at] === close) break;
      if (elision()) open = true;
      else items.push(item());
      space();
      if (text[at] === ',') at++;
      else if (text[at] !== close) fail(`"," or "${close}"`);
    }
    at++;
    return { items, open };
  };
  const value = (): Shape => {
    space();
    if (elision()) return { kind: 'any' };
    const c = text[at];
    if (c === '"') {
      string();
      return { kind: 'string' };
    }
    if (c === '{') {
      const { items, open } = list('}', () => {
        space();
        const key = string();
        space();
        if (text[at++] !== ':') fail('":"');
        return [key, value()] as [string, Shape];
      });
      return { kind: 'object', members: items, open };
    }
    if (c === '[') {
      const { items, open } = list(']', value);
      return { kind: 'array', items, open };
    }
    const word = text.slice(at).match(/^(true|false|null|-?\d+(\.\d+)?([eE][+-]?\d+)?)/);
    if (!word) return fail('a JSON value');
    at += word[0].length;
    return { kind: word[1] === 'null' ? 'null' : /^(true|false)$/.test(word[1]!) ? 'boolean' : 'number' };
  };
  const shape = value();
  return { shape, rest: text.slice(at) };
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * Where `actual` differs from `shape`: a key shown that is missing, a key not shown where the
 * comment does not say `…`, a value of another type, a list of another length.
 */
export function shapeMismatches(actual: unknown, shape: Shape, path = '$'): string[] {
  if (shape.kind === 'any') return [];
  if (typeOf(actual) !== shape.kind)
    return [`${path}: ${typeOf(actual)} where the comment shows ${shape.kind} (${JSON.stringify(actual)})`];
  if (shape.kind === 'object') {
    const object = actual as Record<string, unknown>;
    const shown = new Set(shape.members.map(([k]) => k));
    return [
      ...shape.members.flatMap(([key, member]) =>
        key in object ? shapeMismatches(object[key], member, `${path}.${key}`) : [`${path}.${key}: missing`],
      ),
      ...(shape.open ? [] : Object.keys(object).filter((k) => !shown.has(k))).map((k) => `${path}.${k}: not shown`),
    ];
  }
  if (shape.kind === 'array') {
    const array = actual as unknown[];
    if (shape.open ? array.length < shape.items.length : array.length !== shape.items.length)
      return [
        `${path}: ${array.length} elements where the comment shows ${shape.items.length}${shape.open ? '+' : ''}`,
      ];
    return shape.items.flatMap((item, i) => shapeMismatches(array[i], item, `${path}[${i}]`));
  }
  return [];
}
