/**
 * The layers of src/ (docs/development/architecture.md): the import rules of .dependency-cruiser.cjs hold
 * over the real tree, and they do catch each kind of breach, every rule (checked on a small tree
 * of bad imports written for the purpose); no module of src/ outgrows 500 lines without saying
 * why. (Functions over 80 lines are Biome's to refuse, in `npm run lint`.)
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const config = createRequire(import.meta.url)(join(root, '.dependency-cruiser.cjs')) as IConfiguration;

async function violations(baseDir: string): Promise<string[]> {
  const { output } = await cruise(['src'], {
    baseDir,
    ruleSet: { forbidden: config.forbidden },
    doNotFollow: config.options?.doNotFollow,
    exclude: config.options?.exclude,
    tsPreCompilationDeps: true,
    validate: true,
  });
  const { summary } = output as ICruiseResult;
  return summary.violations.map((v) =>
    v.cycle?.length
      ? `${v.rule.name}: ${v.from} -> ${v.cycle.map((c) => c.name).join(' -> ')}`
      : `${v.rule.name}: ${v.from} -> ${v.to}`,
  );
}

describe('import rules', () => {
  it('hold in src/', async () => {
    expect(await violations(root)).toEqual([]);
  });

  const scratch = mkdtempSync(join(tmpdir(), 'import-rules-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const write = (path: string, imports: string[]) => {
    mkdirSync(dirname(join(scratch, path)), { recursive: true });
    writeFileSync(join(scratch, path), `${imports.map((i) => `import '${i}';`).join('\n')}\nexport {};\n`);
  };

  it('catch each kind of breach', async () => {
    write('src/rest/api.ts', ['../graphql/names.ts']);
    write('src/graphql/names.ts', ['../rest/api.ts']);
    write('src/data/validate.ts', ['../http/input.ts']);
    write('src/http/input.ts', []);
    write('src/db/client.ts', ['../data/load.ts']);
    write('src/data/load.ts', []);
    write('src/resources/registry.ts', ['../db/client.ts']);
    write('src/auth/cli.ts', ['../app.ts']);
    write('src/app.ts', []);
    write('src/seed/cli.ts', ['../../test/support/app.ts']);
    write('test/support/app.ts', []);
    write('src/http/body.ts', ['../auth/tokens.ts']);
    write('src/auth/tokens.ts', []);
    write('src/query/where.ts', ['../data/list.ts']);
    write('src/data/list.ts', []);
    write('src/permissions/roles.ts', ['../graphql/names.ts']);
    const found = (await violations(scratch)).sort();
    expect(found).toEqual([
      'data-below-surfaces: src/data/validate.ts -> src/http/input.ts',
      'db-below-data: src/db/client.ts -> src/data/load.ts',
      'graphql-stands-apart: src/graphql/names.ts -> src/rest/api.ts',
      'http-is-not-a-surface: src/http/body.ts -> src/auth/tokens.ts',
      'no-cycles: src/graphql/names.ts -> src/rest/api.ts -> src/graphql/names.ts',
      'only-main-starts-the-app: src/auth/cli.ts -> src/app.ts',
      'permissions-below-data: src/permissions/roles.ts -> src/graphql/names.ts',
      'query-below-data: src/query/where.ts -> src/data/list.ts',
      'resources-are-descriptions: src/resources/registry.ts -> src/db/client.ts',
      'rest-stands-apart: src/rest/api.ts -> src/graphql/names.ts',
      'src-stands-alone: src/seed/cli.ts -> test/support/app.ts',
    ]);
    // A rule added to the configuration needs its breach here (docs/development/architecture.md says each is proven).
    const caught = new Set(found.map((v) => v.split(':')[0]));
    expect(config.forbidden!.map((rule) => rule.name).filter((name) => !caught.has(name))).toEqual([]);
  });
});

describe('module size', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory() ? (e.name === 'generated' ? [] : files(join(dir, e.name))) : [join(dir, e.name)],
    );

  it('no module of src/ is over 500 lines unless its first comment says why it is kept whole', () => {
    const tooLong = files(join(root, 'src'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => ({ file: relative(root, f), text: readFileSync(f, 'utf8') }))
      .filter(({ text }) => text.split('\n').length > 500 && !/^\/\*\*[\s\S]*?Kept whole:[\s\S]*?\*\//.test(text))
      .map(({ file, text }) => `${file}: ${text.split('\n').length} lines`);
    expect(tooLong).toEqual([]);
  });
});

/**
 * The GraphQL layer has one request pipeline (src/graphql/pipeline.ts): what is worked out per
 * document is kept only with the prepared operation (src/graphql/prepared.ts), errors are said
 * from what the rules looked at, not by rewording graphql-js's messages, and graphql-http is the
 * test that audits the server, not its runtime.
 */
describe('the GraphQL pipeline', () => {
  const sources = readdirSync(join(root, 'src/graphql'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ file: `src/graphql/${f}`, text: readFileSync(join(root, 'src/graphql', f), 'utf8') }));

  it('keeps what it works out per document or query text in the prepared operation only', () => {
    const keyedByDocument =
      /new (Weak)?Map<\s*(DocumentNode|OperationDefinitionNode|string,\s*(DocumentNode|KnownDocument))\b/;
    expect(
      sources
        .filter(({ file, text }) => file !== 'src/graphql/prepared.ts' && keyedByDocument.test(text))
        .map((s) => s.file),
    ).toEqual([]);
  });

  it('never reads graphql-js messages with a regular expression', () => {
    // A pattern applied to a message: /.../.test(error.message), .exec(e.message), message.replace(/.../).
    const rewording = /\/\.(test|exec)\(\s*\w+\.message\b|\.message\.(replace|match)\(\s*\//;
    expect(sources.filter(({ text }) => rewording.test(text)).map((s) => s.file)).toEqual([]);
  });

  it('has graphql-http among the development dependencies only', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    expect(manifest.dependencies!['graphql-http']).toBeUndefined();
    expect(manifest.devDependencies!['graphql-http']).toBeDefined();
    expect(sources.filter(({ text }) => /from 'graphql-http'/.test(text)).map((s) => s.file)).toEqual([]);
  });
});
