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
import type { WriteOptions } from '../data/writes.ts';
import { definition } from '../data/columns.ts';
import { resourceByType, resources } from '../resources/registry.ts';
import { atom } from '../data/forms.ts';
import type { Row } from '../data/load.ts';
import type { Access } from '../permissions/access.ts';
import { quoted } from '../words.ts';

/**
 * The document format, for what the registry does not show (links, meta). Raise it whenever
 * documents change shape otherwise, so that tags held by clients stop matching.
 */
const DOCUMENT_FORMAT = 1;

/** Shapes kept (per type, and per type and role). */
const MAX_SHAPES = 1000;

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
        `the ${name} header must be * or a list of entity tags such as "3-5d41402a" (got ${quoted(header)})`,
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

  /**
   * What every document of `type` looks like apart from its values: its names, links and format;
   * as a role sees them (the names it may see, and the role as it is now: Access.key).
   */
  private shape(type: string, access?: Access): string {
    const key = access ? `${type} ${access.key}` : type;
    let shape = this.shapes.get(key);
    if (!shape) {
      const resource = definition(type);
      const attributes = Object.keys(resource.attributes).filter((n) => !access || access.seesAttribute(type, n));
      const relationships = Object.keys(resource.relationships).filter(
        (n) => !access || access.seesRelationship(type, n),
      );
      const described = JSON.stringify([
        DOCUMENT_FORMAT,
        this.basePath,
        type,
        attributes,
        relationships,
        ...(access ? [access.key] : []),
      ]);
      // Bounded: a role read again is a new Access, and its old shapes are never asked for again.
      if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
      this.shapes.set(key, (shape = createHash('sha256').update(described).digest('hex').slice(0, 8)));
    }
    return shape;
  }

  /**
   * The tag of GET /{type}/{id} without include, for a resource at `version` as a role sees it.
   * `related`: what the document shows of other rows, when a role sees only some of them (the
   * version alone does not then say what the document holds); a write takes the tag by its version.
   */
  resource(type: string, version: number, access?: Access, related?: string): string {
    return `"${version}-${this.shape(type, access)}${related ? `-${related}` : ''}"`;
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

  /**
   * A GET's preconditions (RFC 9110 §13.2.2), given its answer's tag and, for a resource's own
   * document, when it was last modified: 412 when If-Match names another tag (or, without it,
   * If-Unmodified-Since is older); whether the client holds the answer (If-None-Match, or without
   * it If-Modified-Since): answer 304.
   */
  notModified(c: Context, tag: string, lastModified?: Date): boolean {
    const ifMatch = c.req.header('if-match');
    if (ifMatch !== undefined) {
      const tags = parseTags(ifMatch, 'If-Match');
      if (tags !== '*' && !tags.some((t) => !t.weak && t.opaque === tag))
        throw new HttpError(
          412,
          'precondition_failed',
          'If-Match names no tag this answer has: it changed since it was read',
        );
    } else if (lastModified && isAfter(lastModified, httpDate(c.req.header('if-unmodified-since'))))
      throw new HttpError(412, 'precondition_failed', 'modified after the If-Unmodified-Since date');
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch !== undefined) {
      const tags = parseTags(ifNoneMatch, 'If-None-Match');
      return tags === '*' || tags.some((t) => t.opaque === tag);
    }
    const since = lastModified && httpDate(c.req.header('if-modified-since'));
    return since !== undefined && !isAfter(lastModified!, since);
  }

  /**
   * The preconditions of a write to /{type}/{id} or below, as the data layer checks them under
   * the resource's lock (RFC 9110 §13.2.2): If-Match as the versions it accepts (strong comparison:
   * weak tags and tags of another document shape accept none; `*` holds, the resource exists,
   * which every write checks anyway); without it, If-Unmodified-Since; If-None-Match as the
   * versions it refuses (weak comparison; `*` refuses every existing resource). If-Modified-Since
   * and If-Range apply to GET only and are ignored here.
   */
  writeConditions(c: Context, type: string, access?: Access): WriteOptions {
    const options: WriteOptions = {};
    const ifMatch = c.req.header('if-match');
    if (ifMatch !== undefined) {
      const tags = parseTags(ifMatch, 'If-Match');
      if (tags !== '*') options.expectedVersion = this.versionsNamed(tags, type, 'strong', access);
    } else {
      const since = httpDate(c.req.header('if-unmodified-since'));
      if (since) options.unmodifiedSince = since;
    }
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch !== undefined) {
      const tags = parseTags(ifNoneMatch, 'If-None-Match');
      options.unlessVersion = tags === '*' ? 'any' : this.versionsNamed(tags, type, 'weak', access);
    }
    return options;
  }

  private versionsNamed(tags: EntityTag[], type: string, comparison: 'strong' | 'weak', access?: Access): number[] {
    const pattern = new RegExp(`^"(\\d{1,10})-${this.shape(type, access)}(?:-[\\w-]+)?"$`);
    return tags.flatMap((t) => {
      const match = t.weak && comparison === 'strong' ? null : pattern.exec(t.opaque);
      return match ? [Number(match[1])] : [];
    });
  }

  /**
   * ADD's preconditions, on the collection it adds to: the collection exists (If-Match: * holds,
   * If-None-Match: * does not) and has no entity tag a write can match (its pages have tags of
   * their own), nor a modification date (If-Unmodified-Since is ignored).
   */
  collectionConditions(c: Context): void {
    const ifMatch = c.req.header('if-match');
    if (ifMatch !== undefined && parseTags(ifMatch, 'If-Match') !== '*') {
      throw new HttpError(
        412,
        'precondition_failed',
        'If-Match on ADD can only be *: a new resource has no entity tag to match yet',
      );
    }
    const ifNoneMatch = c.req.header('if-none-match');
    if (ifNoneMatch !== undefined && parseTags(ifNoneMatch, 'If-None-Match') === '*') {
      throw new HttpError(412, 'precondition_failed', 'If-None-Match: * on ADD cannot hold: the collection exists');
    }
  }
}

const DAYS = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
/** RFC 9110 §5.6.7's three forms: IMF-fixdate, and the obsolete RFC 850 and asctime forms. */
const HTTP_DATES: [RegExp, (m: RegExpExecArray) => [string, string, string, string]][] = [
  [new RegExp(`^${DAYS}, (\\d{2}) ${MONTH} (\\d{4}) (\\d{2}:\\d{2}:\\d{2}) GMT$`), (m) => [m[3]!, m[2]!, m[1]!, m[4]!]],
  [
    new RegExp(
      `^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) (\\d{2}:\\d{2}:\\d{2}) GMT$`,
    ),
    (m) => [m[3]!, m[2]!, m[1]!, m[4]!],
  ],
  [new RegExp(`^${DAYS} ${MONTH} ( \\d|\\d{2}) (\\d{2}:\\d{2}:\\d{2}) (\\d{4})$`), (m) => [m[4]!, m[1]!, m[2]!, m[3]!]],
];

/**
 * An HTTP-date header's instant, or undefined when it is absent or not a valid HTTP-date, which
 * RFC 9110 §13.1.3 and §13.1.4 say to ignore (a date in another form is no condition at all).
 */
export function httpDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  for (const [form, parts] of HTTP_DATES) {
    const match = form.exec(value);
    if (!match) continue;
    let [year, month, day, time] = parts(match);
    // RFC 850's two-digit year: the most recent past year with those digits (§5.6.7).
    if (year.length === 2) {
      const now = new Date().getUTCFullYear();
      const full = Math.floor(now / 100) * 100 + Number(year);
      year = String(full > now + 50 ? full - 100 : full);
    }
    const date = new Date(
      `${year}-${String(MONTHS.indexOf(month) + 1).padStart(2, '0')}-${day.trim().padStart(2, '0')}T${time}Z`,
    );
    if (Number.isNaN(date.getTime()) || date.getUTCDate() !== Number(day)) return undefined;
    return date;
  }
  return undefined;
}

/** Whether `modified` is later than `since`, in the whole seconds HTTP dates have. */
function isAfter(modified: Date, since: Date | undefined): boolean {
  return since !== undefined && Math.floor(modified.getTime() / 1000) > Math.floor(since.getTime() / 1000);
}

/** When a resource was last modified (its `modified_date`), for types that keep one. */
export function lastModified(type: string, row: Row): Date | undefined {
  const modified = 'modified_date' in resourceByType(type)!.attributes ? atom(row.modified_date) : null;
  return modified ? new Date(modified) : undefined;
}

export function lastModifiedHeader(type: string, row: Row): Record<string, string> {
  const modified = lastModified(type, row);
  return modified ? { 'Last-Modified': modified.toUTCString() } : {};
}
