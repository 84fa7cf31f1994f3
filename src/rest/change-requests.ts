/**
 * Change requests over REST (docs/guides/changes-that-wait.md; src/change-requests says how they
 * work):
 *
 * - `GET /change_requests` (`?state=`, `page`, `per_page`), `GET /change_requests/{id}`;
 * - `POST /change_requests` `{"data": {"type": "change_requests", "attributes": {"operations":
 *   [...], "comment"?, "effective_date"?}}}`: 201 with the request;
 * - `POST /change_requests/{id}/approve`, `/reject`, `/withdraw`, with an optional body
 *   `{"meta": {"comment": "..."}}`;
 * - `GET /change_requests/{id}/preview`: every resource it writes, as it is now and as it would be.
 *
 * A request another client may not see is not found (404), as if it did not exist.
 */
import { type Context, Hono } from 'hono';
import { atom } from '../data/forms.ts';
import { formatCursor } from '../data/changes.ts';
import type { Database } from '../db/client.ts';
import { idFromText } from '../db/integers.ts';
import { readBody } from '../http/body.ts';
import { HttpError, JSON_CONTENT_TYPE } from '../http/errors.ts';
import type { Access } from '../permissions/access.ts';
import type { ChangeRequests, Viewer } from '../change-requests/requests.ts';
import { CHANGE_REQUEST_STATES, type ChangeRequest, type ChangeRequestState } from '../change-requests/states.ts';
import { ProposalRefused } from '../change-requests/approval.ts';
import { previewOf } from '../change-requests/views.ts';
import { visibleOperation } from '../data/change-request-entries.ts';
import { refusalAnswer, refusalOf } from './atomic-errors.ts';
import { readDocument } from './body.ts';
import { pageOf } from './webhooks.ts';
import { apiBase } from './documents.ts';
import { quoted } from '../words.ts';

export const CHANGE_REQUESTS_PATH = '/change_requests';

export interface ChangeRequestRoutesOptions {
  db: Database;
  requests: ChangeRequests;
  basePath: string;
  trustProxy: number;
  maxBodyBytes: number;
}

function invalid(message: string): HttpError {
  return new HttpError(400, 'invalid_parameter', message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function viewerOf(c: Context): Viewer {
  const auth = c.get('auth')!;
  return { clientId: auth.clientId, access: auth.access };
}

function idOf(c: Context): number {
  const id = idFromText(c.req.param('id') ?? '');
  if (id === undefined) throw new HttpError(404, 'not_found', `change_requests ${c.req.param('id')} not found`);
  return id;
}

function listQuery(url: URL): { state?: ChangeRequestState; page: number; perPage: number } {
  let state: ChangeRequestState | undefined;
  const paging = pageOf(url, {
    state: (value) => {
      if (!CHANGE_REQUEST_STATES.includes(value as ChangeRequestState))
        throw invalid(`state must be one of ${CHANGE_REQUEST_STATES.join(', ')} (got ${quoted(value)})`);
      state = value as ChangeRequestState;
    },
  });
  return { state, ...paging };
}

export function changeRequestObject(request: ChangeRequest, base: string, access: Access | undefined) {
  return {
    type: 'change_requests',
    id: String(request.id),
    attributes: {
      state: request.state,
      comment: request.comment,
      effective_date: request.effectiveDate && atom(request.effectiveDate),
      author: request.author,
      types: request.types,
      operations: request.operations.map((operation) => visibleOperation(operation, access)),
      failure: request.failure,
      decisions: request.decisions.map((d) => ({ decision: d.decision, by: d.by, comment: d.comment, at: atom(d.at) })),
      changes_cursor: request.position === null ? null : formatCursor(request.position),
      version: request.version,
      created_date: atom(request.createdDate),
      modified_date: atom(request.modifiedDate),
      settled_date: request.settledDate && atom(request.settledDate),
    },
    links: { self: `${base}${CHANGE_REQUESTS_PATH}/${request.id}` },
  };
}

/** The comment of a decision: `{"meta": {"comment": "..."}}`, or no body at all. */
async function decisionComment(c: Context, limit: number): Promise<unknown> {
  // No body at all (`curl -X POST` sends none, without a type): no comment.
  if (c.req.raw.body === null || c.req.header('content-length') === '0') return undefined;
  // Read within the limit, once (readDocument reads the same bytes again from readBody's cache).
  if (c.req.header('content-type') === undefined && (await readBody(c, limit)).length === 0) return undefined;
  const document = await readDocument(c, limit);
  const keys = Object.keys(document);
  if (keys.some((k) => k !== 'meta') || (document.meta !== undefined && !isObject(document.meta)))
    throw new HttpError(400, 'invalid_json', 'the body is optional; when given: {"meta": {"comment": "..."}}');
  const meta = (document.meta ?? {}) as Record<string, unknown>;
  const unknown = Object.keys(meta).find((k) => k !== 'comment');
  if (unknown !== undefined)
    throw new HttpError(400, 'unknown_field', `meta.${unknown} is not a member: meta takes comment`);
  return meta.comment;
}

export function changeRequestRoutes(options: ChangeRequestRoutesOptions): Hono {
  const { requests, basePath, trustProxy, maxBodyBytes } = options;
  const app = new Hono();
  const base = (c: Context) => apiBase(c, basePath, trustProxy);
  const answer = (c: Context, request: ChangeRequest, status: 200 | 201 | 202 = 200, headers = {}) =>
    c.body(JSON.stringify({ data: changeRequestObject(request, base(c), viewerOf(c).access) }), status, {
      'Content-Type': JSON_CONTENT_TYPE,
      ...headers,
    });
  const refused = (c: Context, error: unknown) => {
    if (error instanceof ProposalRefused) return refusalAnswer(c, [refusalOf(error.failure, error.operations)]);
    throw error;
  };

  app.get(CHANGE_REQUESTS_PATH, async (c) => {
    const query = listQuery(new URL(c.req.url));
    const { requests: found, total } = await requests.list(viewerOf(c), query);
    const access = viewerOf(c).access;
    return c.body(
      JSON.stringify({
        data: found.map((request) => changeRequestObject(request, base(c), access)),
        meta: { total, count: found.length, pages: Math.ceil(total / query.perPage), per_page: query.perPage },
      }),
      200,
      { 'Content-Type': JSON_CONTENT_TYPE },
    );
  });

  app.post(CHANGE_REQUESTS_PATH, async (c) => {
    const document = await readDocument(c, maxBodyBytes);
    const data = document.data;
    if (!isObject(data) || data.type !== 'change_requests' || !isObject(data.attributes))
      throw new HttpError(
        400,
        'invalid_json',
        'the body must be {"data": {"type": "change_requests", "attributes": {"operations": [...], "comment"?: ..., "effective_date"?: ...}}}',
      );
    const { operations, comment, effective_date, ...others } = data.attributes;
    const unknown = Object.keys(others)[0];
    if (unknown !== undefined)
      throw new HttpError(
        400,
        'unknown_field',
        `${unknown} is not an attribute a change request is made with: operations, comment, effective_date`,
      );
    try {
      const request = await requests.propose(
        viewerOf(c),
        { operations, comment, effectiveDate: effective_date },
        c.get('beforeCommit'),
      );
      return answer(c, request, 201, { Location: `${base(c)}${CHANGE_REQUESTS_PATH}/${request.id}` });
    } catch (error) {
      return refused(c, error);
    }
  });

  app.get(`${CHANGE_REQUESTS_PATH}/:id`, async (c) => answer(c, await requests.get(viewerOf(c), idOf(c))));

  for (const decision of ['approve', 'reject', 'withdraw'] as const) {
    app.post(`${CHANGE_REQUESTS_PATH}/:id/${decision}`, async (c) => {
      const id = idOf(c);
      const comment = await decisionComment(c, maxBodyBytes);
      return answer(c, await requests[decision](viewerOf(c), id, comment));
    });
  }

  app.get(`${CHANGE_REQUESTS_PATH}/:id/preview`, async (c) => {
    try {
      return await preview(c, options, base(c));
    } catch (error) {
      return refused(c, error);
    }
  });

  for (const path of [CHANGE_REQUESTS_PATH, `${CHANGE_REQUESTS_PATH}/:id`]) {
    const allow = path === CHANGE_REQUESTS_PATH ? 'GET, HEAD, POST' : 'GET, HEAD';
    app.all(path, (c) => {
      throw new HttpError(
        405,
        'method_not_allowed',
        `${c.req.method} is not allowed on ${c.req.path}; allowed: ${allow}`,
        {
          Allow: allow,
        },
      );
    });
  }
  return app;
}

/** `GET /change_requests/{id}/preview`: src/change-requests/views.ts. */
async function preview(c: Context, { requests, db }: ChangeRequestRoutesOptions, base: string): Promise<Response> {
  const { request, entries } = await previewOf(db, requests, viewerOf(c), idOf(c), base);
  const data = entries.map((entry) => ({ ...entry, id: String(entry.id) }));
  return c.body(JSON.stringify({ data, meta: { change_request: String(request.id), state: request.state } }), 200, {
    'Content-Type': JSON_CONTENT_TYPE,
  });
}
