/**
 * Stack traces of logged errors in the sources' terms (src/…/*.ts:line:column), read from the
 * build's source maps (dist/…/*.js.map) when an error is logged, not at start.
 *
 * Why not `node --enable-source-maps`: Node then parses and keeps the map of every module as it
 * loads, 40-50 MB resident for as long as the server runs (idle RSS 163-180 MB against 110-122
 * without, paired starts on the demo data); errors are rare, so the maps are read only for them.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A frame's location: `file:///…/x.js:12:34` or `/…/x.js:12:34`, in parentheses or after `at `. */
const FRAME_LOCATION = /((?:file:\/\/)?\/[^\s():]+\.js):(\d+):(\d+)/;

/** The maps read so far, by file: the build has a few dozen, each read once. Null: the file has none. */
const maps = new Map<string, { map: SourceMap; dir: string } | null>();

function mapOf(file: string): { map: SourceMap; dir: string } | null {
  let kept = maps.get(file);
  if (kept !== undefined) return kept;
  try {
    kept = { map: new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))), dir: dirname(file) };
  } catch {
    kept = null; // no map beside it (a dependency, or a build without maps): left as it is
  }
  maps.set(file, kept);
  return kept;
}

/** One line of a stack, its location in the sources where the build's map says where it came from. */
function mappedLine(line: string): string {
  const found = FRAME_LOCATION.exec(line);
  if (!found) return line;
  const [location, where, lineText, columnText] = found;
  const file = where!.startsWith('file://') ? fileURLToPath(where!) : where!;
  const kept = mapOf(file);
  // Source maps count lines and columns from 0, stack traces from 1.
  const entry = kept?.map.findEntry(Number(lineText) - 1, Number(columnText) - 1) as
    | { originalSource?: string; originalLine?: number; originalColumn?: number }
    | undefined;
  if (!entry?.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return line;
  const source = entry.originalSource.startsWith('file://')
    ? fileURLToPath(entry.originalSource)
    : resolve(kept!.dir, entry.originalSource);
  return line.replace(location!, `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`);
}

/** A stack trace with each frame of the build shown where it is in the sources. */
export function mappedStack(stack: string): string {
  return stack.split('\n').map(mappedLine).join('\n');
}
