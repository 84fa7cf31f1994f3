/**
 * Delta sync over REST: `GET /changes` pages through the change log (../data/changes.ts) after a
 * cursor, and every LIST and GET answer carries `meta.changes_cursor`, the log's position when
 * the read was taken. A consumer reads everything once, then follows `/changes?after=` that
 * cursor: nothing committed after its read is missed, in commit order (an entry may come twice:
 * at least once). A client with a role gets the log as its role sees the data
 * (../data/role-changes.ts): a consumer that reads what its role sees, then follows, holds exactly
 * that; a `type` its role may not read is 403.
 *
 * `changes_cursor` is a property of the moment of reading, not of the resources: entity tags
 * are computed without it, so that a write elsewhere does not make every tag stale (If-Match
 * would fail, If-None-Match never answer 304). A client that gets 304 keeps the body it holds,
 * whose older cursor is still a correct place to follow from.
 */
import { type Context, Hono } from 'hono';
import { changeObject } from '../data/change-document.ts';
import { changesAfter, formatCursor, parseCursor } from '../data/changes.ts';
import { changesFor } from '../data/role-changes.ts';
import { CHANGE_REQUESTS, followedTypes, LOGGED_TYPES } from '../data/change-request-entries.ts';
import type { Database } from '../db/client.ts';
import { HttpError, JSON_CONTENT_TYPE } from '../http/errors.ts';
import { EntityTags, READ_CACHE_CONTROL } from './conditional.ts';
import { apiBase } from './documents.ts';
import { quoted } from '../words.ts';

export const CHANGES_PATH = '/changes';
export const DEFAULT_CHANGES_PER_PAGE = 100;
export const MAX_CHANGES_PER_PAGE = 500;

interface ChangesQuery {
  after?: number;
  types?: string[];
  perPage: number;
}

function invalid(message: string): HttpError {
  return new HttpError(400, 'invalid_parameter', message);
}

/** `after`, `type` and `per_page`, each at most once; anything else is 400. */
function parseChangesQuery(url: URL): ChangesQuery {
  const query: ChangesQuery = { perPage: DEFAULT_CHANGES_PER_PAGE };
  const seen = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (seen.has(name)) throw invalid(`parameter ${name} is repeated`);
    seen.add(name);
    if (name === 'after') query.after = parseCursor(value, 'after');
    else if (name === 'type') query.types = parseTypes(value);
    else if (name === 'per_page') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_CHANGES_PER_PAGE)
        throw invalid(`per_page must be an integer from 1 to ${MAX_CHANGES_PER_PAGE} (got ${quoted(value)})`);
      query.perPage = Number(value);
    } else throw invalid(`unknown query parameter ${name}; /changes takes after, type and per_page`);
  }
  return query;
}

/** `type=products,product_structure_items`: resource types, comma-separated. */
function parseTypes(value: string): string[] {
  const types = [
    ...new Set(
      value
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
  if (types.length === 0) throw invalid('type must name at least one resource type');
  for (const type of types) {
    if (!LOGGED_TYPES.includes(type))
      throw invalid(`type ${quoted(type)} is not a resource type; one of: ${LOGGED_TYPES.join(', ')}`);
  }
  return types;
}

/**
 * A document's bytes, given in parts (./document-bytes.ts), with `changes_cursor` added: into
 * `meta`, the document's last member (LIST pages), or as a new `meta` (GET). Spliced into the
 * document's last part (its closing text) as the parts are joined, after the entity tag was taken.
 */
export function withChangesCursor(parts: readonly Buffer[], cursor: number, intoMeta: boolean): Buffer<ArrayBuffer> {
  const member = `"changes_cursor":"${formatCursor(cursor)}"`;
  const cut = intoMeta ? 2 : 1;
  const insert = intoMeta ? `,${member}` : `,"meta":{${member}}`;
  const last = parts[parts.length - 1]!;
  return Buffer.concat([
    ...parts.slice(0, -1),
    last.subarray(0, last.length - cut),
    Buffer.from(insert),
    last.subarray(last.length - cut),
  ]);
}

export function changesRoutes({
  db,
  basePath,
  trustProxy,
}: {
  db: Database;
  basePath: string;
  trustProxy: number;
}): Hono {
  const app = new Hono();
  const tags = new EntityTags(basePath);
  app.get(CHANGES_PATH, async (c: Context) => {
    const url = new URL(c.req.url);
    const query = parseChangesQuery(url);
    const auth = c.get('auth')!;
    const access = auth.access;
    // A type the role may not read is refused like its paths (403, naming it). Change requests
    // show to their author and approvers (../data/change-request-entries.ts), whatever the role.
    const unreadable = access && query.types?.find((type) => type !== CHANGE_REQUESTS && !access.can(type, 'read'));
    if (unreadable) throw new HttpError(403, 'forbidden', `the role ${access.name} may not use ${unreadable}`);
    // The primary, also with a read replica: a cursor handed out by the primary (a LIST read there,
    // a live change) is never past the head of the log this reads. A role sees the log as it sees
    // the data (../data/role-changes.ts); admin reads it as it is.
    const options = { types: followedTypes(query.types), limit: query.perPage };
    const page = access
      ? await changesFor(db.primary, access, query.after, { ...options, clientId: auth.clientId })
      : await changesAfter(db.primary, query.after, options);
    const next = new URLSearchParams(url.searchParams);
    next.set('after', formatCursor(page.cursor));
    const here = `${apiBase(c, basePath, trustProxy)}${CHANGES_PATH}`;
    const bytes = Buffer.from(
      JSON.stringify({
        data: page.entries.map(changeObject),
        meta: { cursor: formatCursor(page.cursor), has_more: page.hasMore },
        links: { self: `${here}${url.search}`, next: `${here}?${next.toString().replace(/%2C/g, ',')}` },
      }),
    );
    const tag = tags.body(bytes);
    const headers = { ETag: tag, 'Cache-Control': READ_CACHE_CONTROL };
    if (tags.notModified(c, tag)) return c.body(null, 304, headers);
    return c.body(bytes, 200, { 'Content-Type': JSON_CONTENT_TYPE, ...headers });
  });
  app.all(CHANGES_PATH, (c) => {
    throw new HttpError(
      405,
      'method_not_allowed',
      `${c.req.method} is not allowed on ${c.req.path}; allowed: GET, HEAD`,
      {
        Allow: 'GET, HEAD',
      },
    );
  });
  return app;
}
