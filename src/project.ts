/**
 * The project's root directory: where package.json and prisma/ are. Found by walking up from this
 * module, which is src/project.ts when run from the sources (tsx, tests) and a file of dist/ in
 * the compiled build: a path written relative to a module would differ between the two.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'prisma'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no project root (package.json and prisma/) above ${from}`);
  }
}

export const PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the project, e.g. `projectPath('prisma', 'sqlite', 'migrations')`. */
export function projectPath(...parts: string[]): string {
  return join(PROJECT_ROOT, ...parts);
}
