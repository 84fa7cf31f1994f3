/**
 * docs/development/architecture.md and docs/development/code.md ("Where things are") against the
 * tree, where a machine can tell: the middleware order the doc gives is the order of `app.use` in src/app.ts; every module
 * at the root of src/ (and every directory) is named; every file the doc names exists, and the
 * symbol it names beside a module is in it; the schema modules it lists are the ones
 * src/graphql/schema.ts builds from; the import rules' table names the rules of
 * .dependency-cruiser.cjs; the size limits it states are the enforced ones.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const doc = read('docs/development/architecture.md');
const map = read('docs/development/code.md');

/** The lines of a Markdown section, from its heading to the next heading of its level or above. */
function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => l.replace(/^#+ /, '') === heading && l.startsWith('#'));
  if (start < 0) throw new Error(`no section "${heading}"`);
  const level = lines[start]!.match(/^#+/)![0].length;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** Whether `path` (from the root, or else from src/) exists; `<name>` matches any one directory. */
function exists(path: string): boolean {
  const clean = path.replace(/\/$/, '');
  return [clean, `src/${clean}`].some((candidate) => {
    const [head, ...rest] = candidate.split(/<[^>]+>/);
    if (rest.length === 0) return existsSync(join(root, candidate));
    const parent = join(root, head!);
    return (
      existsSync(parent) &&
      readdirSync(parent).some((d) => statSync(join(parent, d)).isDirectory() && exists(`${head}${d}${rest.join('')}`))
    );
  });
}

/** `app.use('*', x)` calls of createApp, in order: the middleware function called, or `inline`. */
function appMiddleware(): { name: string; module?: string }[] {
  const source = ts.createSourceFile('app.ts', read('src/app.ts'), ts.ScriptTarget.Latest, true);
  const imported = new Map<string, string>();
  const used: { name: string; module?: string }[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isImportDeclaration(node) &&
      node.importClause?.namedBindings &&
      ts.isNamedImports(node.importClause.namedBindings)
    )
      for (const element of node.importClause.namedBindings.elements)
        imported.set(element.name.text, (node.moduleSpecifier as ts.StringLiteral).text.replace(/^\.\//, ''));
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.getText() === 'app.use'
    ) {
      const handler = node.arguments[1]!;
      const name = ts.isCallExpression(handler) ? handler.expression.getText() : 'inline';
      used.push({ name, module: imported.get(name) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

describe('docs/development/architecture.md', () => {
  it('gives the middleware in the order src/app.ts uses it, each from the module it names', () => {
    const list = doc.match(/`app\.ts` middleware, in the order of its `app\.use` calls:\n((?: {3}.*\n)+)/)?.[1];
    expect(list, 'the list of middleware is missing').toBeDefined();
    const documented = list!
      .split('\n')
      .filter((l) => /^ {3}\d+\. /.test(l))
      .map((l) => {
        const named = l.match(/^ {3}\d+\. `(\w+)` \(`([\w/.-]+)`\)/);
        if (named) return { name: named[1]!, module: named[2] };
        return { name: /\(inline\b/.test(l) ? 'inline' : l.trim(), module: undefined };
      });
    expect(documented).toEqual(appMiddleware());
  });

  it('names every module and directory at the root of src/', () => {
    const entries = readdirSync(join(root, 'src'), { withFileTypes: true });
    const missing = [
      ...entries.filter((e) => e.isFile()).map((e) => `\`${e.name}\``),
      ...entries.filter((e) => e.isDirectory()).map((e) => `${e.name}/`),
    ].filter((name) => !doc.includes(name));
    expect(missing).toEqual([]);
  });

  it('names only files that exist', () => {
    const named = [...doc.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((t) => /^[\w.<>@-]+(\/[\w.<>-]*)+$|^[\w.<>-]+\.(ts|cjs|mjs|jsonc?|prisma|md)$|^\.[\w-]+$/.test(t))
      .filter((t) => !t.startsWith('/'));
    expect(named.length).toBeGreaterThan(40);
    expect([...new Set(named)].filter((path) => !exists(path))).toEqual([]);
  });

  it('names symbols that are in the modules it names beside them', () => {
    const pairs = [...doc.matchAll(/`([\w/.-]+\.ts)`\s+`(\w+)(?:\.(\w+))?`/g)];
    expect(pairs.length).toBeGreaterThan(5);
    const absent = pairs.flatMap(([, module, ...names]) => {
      const path = existsSync(join(root, 'src', module!)) ? `src/${module}` : module!;
      const text = read(path);
      return names.filter((n) => n && !new RegExp(`\\b${n}\\b`).test(text)).map((n) => `${module}: ${n}`);
    });
    expect(absent).toEqual([]);
  });

  it('lists the modules src/graphql/schema.ts builds the schema from', () => {
    const listed = [...doc.matchAll(/^ {3}- `(graphql\/[\w-]+\.ts)`:/gm)].map((m) => m[1]);
    const built = [...read('src/graphql/schema.ts').matchAll(/^import '\.\/([\w-]+\.ts)';/gm)].map(
      (m) => `graphql/${m[1]}`,
    );
    expect(built.length).toBeGreaterThan(0);
    expect(listed).toEqual(built);
  });

  it('names in its table every import rule of .dependency-cruiser.cjs, and no other', () => {
    const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as {
      forbidden: { name: string }[];
    };
    const table = section(doc, 'Layers and what each may import')
      .split('\n')
      .filter((l) => l.startsWith('| `'))
      .flatMap((l) => [...l.split('|')[1]!.matchAll(/`([\w-]+)`/g)].map((m) => m[1]));
    expect(table.sort()).toEqual(config.forbidden.map((r) => r.name).sort());
  });

  it('says what the seed takes of data/: only what src/seed/ imports from it', () => {
    const taken = readdirSync(join(root, 'src/seed')).flatMap((f) =>
      [...read(`src/seed/${f}`).matchAll(/^import \{([^}]*)\} from '\.\.\/data\//gm)].flatMap((m) =>
        m[1]!.split(',').map((name) => name.trim()),
      ),
    );
    // The functions the paragraph names after "takes ... of `data/`", up to its end.
    const paragraph = doc.match(/takes \w+ functions? of `data\/`([\s\S]*?)\n\n/)?.[1] ?? '';
    const said = [...paragraph.matchAll(/`(\w+)`/g)].map((m) => m[1]);
    expect([...new Set(taken)].sort()).toEqual([...new Set(said)].sort());
  });

  it('states the size limits that are enforced, and the modules kept whole', () => {
    const biome = JSON.parse(read('biome.jsonc').replace(/^\s*\/\/.*$/gm, '')) as any;
    const functionLines = biome.linter.rules.complexity.noExcessiveLinesPerFunction.options.maxLines;
    expect(doc).toContain(`No function of \`src/\` is over ${functionLines} lines`);
    expect(doc).toContain("Biome's `noExcessiveLinesPerFunction`");
    const moduleLines = read('test/architecture.test.ts').match(/\.length > (\d+) &&/)?.[1];
    expect(doc).toContain(`no module of \`src/\` is over ${moduleLines} lines`);
    const modules = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? (e.name === 'generated' ? [] : modules(`${dir}/${e.name}`)) : [`${dir}/${e.name}`],
      );
    const keptWhole = modules('src')
      .filter((f) => /Kept whole:/.test(read(f)))
      .map((f) => f.replace(/^src\//, ''));
    const named = doc.match(/today only ([^)]*?), which/)?.[1];
    expect([...(named ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1])).toEqual(keptWhole);
  });
});

describe('docs/development/code.md, "Where things are"', () => {
  const block = section(map, 'Where things are').match(/```\n([\s\S]*?)```/)![1]!;
  /** Each entry: the paths it names and its description (continuation lines included). */
  const entries = block.split(/\n(?! )/).map((entry) => {
    const [paths, ...description] = entry.trim().split(/\s{2,}/);
    return { paths: paths!.split(', '), description: description.join(' ') };
  });

  it('names paths that exist, and files in their descriptions that exist', () => {
    const missing = entries.flatMap(({ paths, description }) => [
      ...paths.filter((p) => !exists(p)),
      // A file named in the description of a directory is in it, or a path from the root.
      ...[...description.matchAll(/\b([\w/-]+\.(?:ts|md|prisma))\b/g)]
        .map((m) => m[1]!)
        .filter((f) => !exists(f) && !paths.some((p) => p.endsWith('/') && exists(`${p}${f}`)))
        .map((f) => `${paths.join(', ')}: ${f}`),
    ]);
    expect(entries.length).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('names every directory and module at the root of src/', () => {
    const named = new Set(entries.flatMap((e) => e.paths));
    const missing = readdirSync(join(root, 'src'), { withFileTypes: true })
      .map((e) => (e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`))
      .filter((path) => !named.has(path));
    expect(missing).toEqual([]);
  });
});
