/**
 * The project's Markdown pages as a reader meets them: which pages there are, the links in them
 * (outside code), and the anchors GitHub gives their headings.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './process.ts';

/** docs/spec/ is the old service's interface document, copied verbatim: not ours to test. */
const VERBATIM = 'docs/spec/';

/** README.md and every page under docs/ (paths from the project's root, `/`-separated), sorted. */
export function markdownPages({ verbatim = false } = {}): string[] {
  const under = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return under(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  const docs = under('docs')
    .filter((path) => verbatim || !path.startsWith(VERBATIM))
    .sort();
  return ['README.md', ...docs];
}

export const readPage = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The page's lines with the lines of fenced code blocks (fences included) blanked. */
function prose(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split('\n').map((line) => {
    const marker = line.match(/^\s*(```+|~~~+)/)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      return '';
    }
    if (marker) {
      fence = marker;
      return '';
    }
    return line;
  });
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links `[text](target)` and reference definitions `[label]: target`, outside code. */
export function links(markdown: string): Link[] {
  return prose(markdown).flatMap((text, i) => {
    const outsideCode = text.replace(/`[^`]*`/g, '');
    const inline = [...outsideCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
    const definition = outsideCode.match(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/)?.[1];
    return [...inline, ...(definition ? [definition] : [])].map((target) => ({ line: i + 1, target }));
  });
}

/** Whether a link leaves the project (a URL with a scheme, or a protocol-relative one). */
export const isExternal = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/**
 * The anchors of a page's headings as GitHub makes them: the heading's text (markup taken out)
 * in small letters, without punctuation other than `-` and `_`, spaces as `-`; a repeated
 * anchor gets `-1`, `-2`, ...
 */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of prose(markdown)) {
    const heading = line.match(/^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/)?.[1];
    if (heading === undefined) continue;
    // Code spans are text as written (`create<Types>`); elsewhere links give their text and
    // HTML tags and emphasis marks are markup.
    const text = heading
      .split(/(`[^`]*`)/)
      .map((part, j) =>
        j % 2 === 1
          ? part.slice(1, -1)
          : part
              .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
              .replace(/<\/?[a-z][^>]*>/gi, '')
              .replace(/[*~]/g, ''),
      )
      .join('');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** A link's target as a path from the project's root, and its anchor; `from` is the linking page. */
export function resolveLink(from: string, target: string): { path: string; anchor?: string } {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const dir = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
  const path =
    file === ''
      ? from
      : relative(ROOT, join(ROOT, dir, decodeURIComponent(file)))
          .split('\\')
          .join('/');
  return { path, anchor: anchor === undefined ? undefined : decodeURIComponent(anchor) };
}
