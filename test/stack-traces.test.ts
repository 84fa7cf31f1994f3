/**
 * Logged errors' stacks in the sources' terms (src/observability/stack-traces.ts): `npm start`
 * runs without --enable-source-maps, so the logger maps a frame of the build (dist/, which
 * test/support/global-setup.ts builds) through its source map when an error is logged.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { mappedStack } from '../src/observability/stack-traces.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where `text` starts in a file, as a stack trace counts: line and column from 1. */
function positionOf(file: string, text: string): [number, number] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const line = lines.findIndex((l) => l.includes(text));
  expect(line, `${text} in ${file}`).toBeGreaterThanOrEqual(0);
  return [line + 1, lines[line]!.indexOf(text) + 1];
}

describe('mappedStack', () => {
  it('shows a frame of the build at its place in the sources, and leaves other frames as they are', () => {
    const built = `${ROOT}dist/main.js`;
    const [line, column] = positionOf(built, '"unhandled error"');
    const [sourceLine] = positionOf(`${ROOT}src/app.ts`, "'unhandled error'");
    const stack = [
      'Error: boom',
      `    at onError (${pathToFileURL(built).href}:${line}:${column})`,
      `    at ${built}:${line}:${column}`,
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      `    at run (${ROOT}node_modules/hono/dist/hono-base.js:10:3)`,
    ].join('\n');
    const mapped = mappedStack(stack).split('\n');
    expect(mapped[0]).toBe('Error: boom');
    expect(mapped[1]).toMatch(new RegExp(`^    at onError \\(${ROOT}src/app\\.ts:${sourceLine}:\\d+\\)$`));
    expect(mapped[2]).toMatch(new RegExp(`^    at ${ROOT}src/app\\.ts:${sourceLine}:\\d+$`));
    expect(mapped.slice(3)).toEqual(stack.split('\n').slice(3));
  });
});
