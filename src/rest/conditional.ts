/**
 * Conditional requests (RFC 9110 §8.8.3, §13): a strong entity tag on every GET answer,
 * `If-None-Match` on reads (304 when the client holds the current answer), `If-Match` on writes
 * (412 when the resource has moved on; nothing is written).
 *
 * A resource's own document (GET /{type}/{id} without `include`) is tagged by what makes it:
 * the row's version and the shape of its type's documents, `"<version>-<shape>"`. So the tag is
 * known without reading the document, and a write turns If-Match into the versions it accepts,
 * which the data layer checks under the row's lock (src/data/writes.ts). Every other answer (a
 * LIST page, a relationship, related resources, anything with `included`) is tagged by a digest
 * of what its bytes are a function of (its text and the versions of its resource objects,
 * ./document-bytes.ts): it changes exactly when the body does.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { HttpError } from '../http/errors.ts';
import { definition } from '../data/columns.ts';
import { resources } from '../resources/registry.ts';

/**
 * The document format, for what the registry does not show (links, meta). Raise it whenever
 * documents change shape otherwise, so that tags held by clients stop matching.
 */
const DOCUMENT_FORMAT = 1;

/** GET answers may be kept by the client (never by shared caches), and must be revalidated. */
export const READ_CACHE_CONTROL = 'private, no-cache';

/** A tag as sent in If-Match / If-None-Match: its opaque part (quotes kept) and whether it is weak. */
interface EntityTag {
  weak: boolean;
  opaque: string;
}

/** RFC 9110 §8.8.3: `*`, or a comma-separated list of `W/"..."` and `"..."`. */
const ENTITY_TAG = /^\s*(W\/)?("[\x21\x23-\x7e\x80-\xff]*")\s*(?:,|$)/;

function parseTags(header: string, name: string): '*' | EntityTag[] {
  if (header.trim() === '*') return '*';
  const tags: EntityTag[] = [];
  let rest = header;
  while (rest.trim() !== '') {
    const match = ENTITY_TAG.exec(rest);
    if (!match)
      throw new HttpError(
        400,
        'invalid_parameter',
        `the ${name} header must be * or a list of entity tags such as "3-5d41402a" (got ${JSON.stringify(header)})`,
      );
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
    rest = rest.slice(match[0].length);
  }
  return tags;
}

export class EntityTags {
  private readonly shapes = new Map<string, string>();
  private allShapes: string | undefined;

  /** `basePath`: the links in documents carry it, so a new one is a new shape. */
  constructor(private readonly basePath: string) {}

  /** What every document of `type` looks like apart from its values: its names, links and format. */
  private shape(type: string): string {
    let shape = this.shapes.get(type);
    if (!shape) {
      const resource = definition(type);
      const described = JSON.stringify([
        DOCUMENT_FORMAT,
        this.basePath,
        type,
        Object.keys(resource.attributes),
        Object.keys(resource.relationships),
      ]);
      this.shapes.set(type, (shape = createHash('sha256').update(described).digest('hex').slice(0, 8)));
    }
    return shape;
  }

  /** The tag of GET /{type}/{id} without include, for a resource at `version`. */
  resource(type: string, version: number): string {
    return `"${version}-${this.shape(type)}"`;
  }

  /** The tag of any other answer: a digest of its bytes. */
  body(bytes: Uint8Array): string {
    return `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;
  }

  /**
   * The tag of a GET answer made of resource objects kept by version: a digest of what its bytes
   * are a function of (./document-bytes.ts `fingerprint`) and of the documents' format, instead
   * of its bytes (a page of 50 products: 56 KB to digest, against about 2 KB).
   */
  ofFingerprint(fingerprint: string): string {
    const digest = createHash('sha256').update(this.format()).update(fingerprint).digest('base64url');
    return `"${digest.slice(0, 27)}"`;
  }

  /** Every type's shape: a document of kept resource objects changes with the format of any of them. */
  private format(): string {
    this.allShapes ??= resources.map((r) => this.shape(r.type)).join(' ');
    return this.allShapes;
  }

  /** Whether If-None-Match names `tag` (weak comparison, as RFC 9110 §13.1.2 asks): answer 304. */
  clientHolds(c: Context, tag: string): boolean {
    const header = c.req.header('if-none-match');
    if (header === undefined) return false;
    const tags = parseTags(header, 'If-None-Match');
    return tags === '*' || tags.some((t) => t.opaque === tag);
  }

  /**
   * The versions of the resource If-Match accepts (strong comparison: weak tags and tags of
   * another document shape accept none), or undefined when there is no condition (no header, or `*`:
   * the resource exists, which every write checks anyway).
   */
  expectedVersions(c: Context, type: string): number[] | undefined {
    const header = c.req.header('if-match');
    if (header === undefined) return undefined;
    const tags = parseTags(header, 'If-Match');
    if (tags === '*') return undefined;
    const pattern = new RegExp(`^"(\\d{1,10})-${this.shape(type)}"$`);
    return tags.flatMap((t) => {
      const match = t.weak ? null : pattern.exec(t.opaque);
      return match ? [Number(match[1])] : [];
    });
  }

  /** ADD has no current resource to match: If-Match other than `*` cannot hold. */
  refuseOnCollection(c: Context): void {
    const header = c.req.header('if-match');
    if (header !== undefined && parseTags(header, 'If-Match') !== '*') {
      throw new HttpError(
        412,
        'precondition_failed',
        'If-Match on ADD can only be *: a new resource has no entity tag to match yet',
      );
    }
  }
}
