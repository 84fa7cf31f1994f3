/**
 * The documentation holds together, read without running anything: every relative link of
 * README.md and of the pages under docs/ leads to a file or directory that exists, and its
 * `#anchor` to a heading of the page it names (as GitHub makes heading anchors); docs/README.md,
 * the index, links every page under docs/; README.md links the index; the configuration reference
 * lists every setting. And the shell examples (test/docs-examples.test.ts runs them) are fit to
 * run: each runs or says why not, none has a placeholder or an address of the service other than
 * `$MDG_URL`, which each page sets before it uses it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';
import {
  examplePage,
  examplePages,
  mdgUrlUnset,
  runBlocks,
  uncheckedFirstRequests,
  unexplainedBlocks,
  unrunnableLines,
} from './support/doc-examples.ts';
import { headingAnchors, isExternal, links, markdownPages, readPage, resolveLink } from './support/markdown.ts';
import { ROOT } from './support/process.ts';

const pages = markdownPages();

/** The pages a page links to (paths from the root). */
const linked = (page: string) =>
  new Set(
    links(readPage(page))
      .filter((l) => !isExternal(l.target))
      .map((l) => resolveLink(page, l.target).path),
  );

describe('links of the documentation', () => {
  it('lead to files that exist, and to headings that exist', () => {
    const broken = pages.flatMap((page) =>
      links(readPage(page))
        .filter((l) => !isExternal(l.target))
        .flatMap(({ line, target }) => {
          const { path, anchor } = resolveLink(page, target);
          if (!existsSync(join(ROOT, path))) return [`${page}:${line}: ${target} (no ${path})`];
          if (anchor === undefined) return [];
          if (!path.endsWith('.md')) return [`${page}:${line}: ${target} (an anchor into a file that is not Markdown)`];
          return headingAnchors(readPage(path)).has(anchor)
            ? []
            : [`${page}:${line}: ${target} (no heading #${anchor})`];
        }),
    );
    expect(pages.length).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('reach every page from the index, and the index from the README', () => {
    const fromIndex = linked('docs/README.md');
    const unlisted = markdownPages({ verbatim: true }).filter(
      (page) => page.startsWith('docs/') && page !== 'docs/README.md' && !fromIndex.has(page),
    );
    expect(unlisted).toEqual([]);
    expect(linked('README.md')).toContain('docs/README.md');
  });

  it('make anchors as GitHub does', () => {
    const anchors = headingAnchors(
      [
        '# The GraphQL API',
        '## Delta sync: GET /changes',
        '### Many rows at once: `create<Types>`, `update<Types>`',
        '## Versions, conditional requests and safe retries',
        '## [Linked](x.md) **bold** <em>tag</em>',
        '## Errors',
        '## Errors',
        '```sh',
        '# a comment, not a heading',
        '```',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'the-graphql-api',
      'delta-sync-get-changes',
      'many-rows-at-once-createtypes-updatetypes',
      'versions-conditional-requests-and-safe-retries',
      'linked-bold-tag',
      'errors',
      'errors-1',
    ]);
  });
});

describe('the configuration reference', () => {
  it('lists every variable src/config.ts reads, and no other', () => {
    const listed = [...readPage('docs/reference/configuration.md').matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map(
      (m) => m[1],
    );
    expect(listed.sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});

describe('shell examples of the README and docs/', () => {
  const pages = examplePages();

  it('are run, or marked with the reason why not', () => {
    expect(pages.flatMap(unexplainedBlocks)).toEqual([]);
    expect(pages.filter((p) => runBlocks(p).length > 0).map((p) => p.path)).toContain('README.md');
  });

  it("leave no placeholder for the user to fill in, and name no address but $MDG_URL's default", () => {
    expect(pages.flatMap(unrunnableLines)).toEqual([]);
  });

  it('set $MDG_URL before they use it, and check what they take from the README before they use it', () => {
    expect(pages.flatMap(mdgUrlUnset)).toEqual([]);
    expect(pages.flatMap((page) => uncheckedFirstRequests(page))).toEqual([]);
  });

  it('are held to those rules: what each check finds in a page that breaks it', () => {
    const page = examplePage(
      'example.md',
      [
        '<!-- not run -->',
        '```sh',
        'npm ci',
        '```',
        '<!-- not run: starts a cluster -->',
        'Some text.',
        '```sh',
        'curl -s "$MDG_URL/healthz"',
        'curl -s http://localhost:4000/readyz',
        'curl -s "$MDG_URL/units/<id>"',
        '# {"data":{…}}',
        '```',
        '- a list item:',
        '  <!-- not run: installs packages -->',
        '  ```sh',
        '  apt-get install -y chromium',
        '  ```',
        '```json',
        '{"not": "shell"}',
        '```',
      ].join('\n'),
    );
    expect(page.blocks.map((b) => [b.line, b.notRun, b.lines.map((l) => l.text)])).toEqual([
      [2, '', ['npm ci']],
      [
        7,
        undefined,
        [
          'curl -s "$MDG_URL/healthz"',
          'curl -s http://localhost:4000/readyz',
          'curl -s "$MDG_URL/units/<id>"',
          '# {"data":{…}}',
        ],
      ],
      [15, 'installs packages', ['apt-get install -y chromium']],
    ]);
    expect(unexplainedBlocks(page)).toEqual([
      'example.md:2: ```sh: not run, without a reason',
      'example.md:5: <!-- not run: starts a cluster -->: a "not run" marker with no shell block after it',
    ]);
    expect(unrunnableLines(page)).toEqual([
      'example.md:9: curl -s http://localhost:4000/readyz: a fixed address (use "$MDG_URL")',
      'example.md:10: curl -s "$MDG_URL/units/<id>": a placeholder',
    ]);
    expect(mdgUrlUnset(page)).toEqual(['example.md:8: curl -s "$MDG_URL/healthz": $MDG_URL is not set yet']);
    const guide = examplePage(
      'guide.md',
      [
        '```sh',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: shell, not a template
        ': "${TOKEN:?run the README\'s First requests}"',
        'curl -s -H "Authorization: Bearer $TOKEN" "$MDG_URL/units"',
        'SHOP_TOKEN=$(curl -s -u "$ID:$SECRET" "$MDG_URL/oauth/token.php")',
        'SECRET=mds_new',
        '```',
      ].join('\n'),
    );
    expect(uncheckedFirstRequests(guide)).toEqual([
      'guide.md:4: SHOP_TOKEN=$(curl -s -u "$ID:$SECRET" "$MDG_URL/oauth/token.php"): $ID is used before it is set or checked',
      'guide.md:4: SHOP_TOKEN=$(curl -s -u "$ID:$SECRET" "$MDG_URL/oauth/token.php"): $SECRET is used before it is set or checked',
    ]);
  });
});
