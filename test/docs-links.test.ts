/**
 * The documentation holds together: every relative link of README.md and of the pages under
 * docs/ leads to a file or directory that exists, and its `#anchor` to a heading of the page it
 * names (as GitHub makes heading anchors); docs/README.md, the index, links every page under
 * docs/; README.md links the index.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_VARIABLES } from '../src/config.ts';
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
