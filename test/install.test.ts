/**
 * What an install gets, on the Node version the README names:
 *
 * - `npm ci --omit=dev && npm start`, as a production install runs it: the project's files with
 *   only the packages of `dependencies` (and theirs), its install script (`npm run generate &&
 *   npm run build`) run with those alone, then the server started from that copy. A module the
 *   server (or its build) needs at run time that is only a devDependency fails it.
 * - No installed package declares an engine range that leaves out the Node version the README
 *   and package.json name (npm prints an EBADENGINE warning for each, and such a package may use
 *   what that Node lacks).
 *
 * The copy is made from this checkout's node_modules (the packages `npm ls --omit=dev` lists,
 * hard-linked) rather than downloaded and compiled again: the same files a dependencies-only
 * install has, in seconds instead of minutes.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratedDatabase, providers } from './support/databases.ts';
import { ROOT, startService } from './support/process.ts';

const packageJson = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
/** The oldest Node the project says it runs on. */
const statedNode = semver.minVersion(packageJson.engines.node)!.version;

describe('the Node version the project names', () => {
  it('is the one the README names, and the machine runs a version within it', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const [major, minor] = statedNode.split('.');
    expect(readme).toContain(`Node ${major}.${minor} or newer`);
    expect(semver.satisfies(process.version, packageJson.engines.node), process.version).toBe(true);
  });

  it('is within the engines of every package the lockfile installs (no EBADENGINE warning)', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path !== '' && p.engines && !Array.isArray(p.engines) && p.engines.node)
      .filter(([, p]) => {
        const range = (p.engines as { node: string }).node;
        return !semver.satisfies(statedNode, range) || !semver.satisfies(process.version, range);
      })
      .map(([path, p]) => `${path}@${p.version} needs node ${(p.engines as { node: string }).node}`);
    expect(refusing).toEqual([]);
  });
});

/** The packages a dependencies-only install holds, as paths relative to the project. */
function productionPackages(): string[] {
  const listed = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .map((path) => relative(ROOT, path))
    .filter((path) => path.startsWith(`node_modules${sep}`))
    .sort();
  // A package's own node_modules comes with it.
  return listed.filter((path, i) => !listed.slice(0, i).some((parent) => path.startsWith(`${parent}${sep}`)));
}

/** A directory tree copied as hard links (nothing is written through them: the copy only reads packages). */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) linkTree(source, target);
    else if (entry.isSymbolicLink()) cpSync(source, target, { verbatimSymlinks: true });
    else linkSync(source, target);
  }
}

/** The project as a clean clone has it (tracked files), with the packages of a dependencies-only install. */
function dependenciesOnlyInstall(dir: string): void {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of tracked) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    cpSync(join(ROOT, file), join(dir, file));
  }
  for (const path of productionPackages()) linkTree(join(ROOT, path), join(dir, path));
  // The commands packages install (tsx, prisma, esbuild for the install script): those of packages present.
  const bin = join(ROOT, 'node_modules', '.bin');
  mkdirSync(join(dir, 'node_modules', '.bin'));
  for (const name of readdirSync(bin)) {
    const link = join(dir, 'node_modules', '.bin', name);
    cpSync(join(bin, name), link, { verbatimSymlinks: true });
    if (!existsSync(link)) rmSync(link);
  }
  // What `npm ci` runs after installing: the project's own install script, with these packages only.
  execFileSync('npm', ['run', '--silent', 'postinstall'], { cwd: dir, stdio: 'pipe' });
}

describe('a dependencies-only install (npm ci --omit=dev)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mdg-prod-'));
  beforeAll(() => dependenciesOnlyInstall(dir), 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(providers)('starts with npm start and serves /readyz on %s', async (provider) => {
    const database = await migratedDatabase(provider);
    const service = await startService(
      { DATABASE_URL: database.target.url, SEED_DEMO_DATA: 'false' },
      { viaNpm: true, cwd: dir },
    );
    try {
      const ready = await fetch(`${service.baseUrl}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: provider });
    } finally {
      await service.stop();
      await database.cleanup();
    }
  });
});
