/**
 * Webhook endpoints over REST (docs/guides/webhooks.md), each API client's own:
 *
 * - `GET /webhooks`, `POST /webhooks` (the answer holds the signing secret, once);
 * - `GET|PATCH|DELETE /webhooks/{id}`;
 * - `GET /webhooks/{id}/deliveries`: newest first, paged, each with its attempts;
 * - `POST /webhooks/{id}/replay` `{"after": "<cursor>"}`: everything after the cursor again;
 * - `POST /webhooks/{id}/rotate-secret`: a new secret (the old one signs too for 24 hours).
 *
 * Documents are shaped as the rest of the API's: `{data: {type: "webhooks", id, attributes}}`.
 * Another client's endpoint is not found (404), as if it did not exist.
 */
import { type Context, Hono } from 'hono';
import { atom } from '../data/forms.ts';
import { parseCursor } from '../data/changes.ts';
import { idFromText } from '../db/integers.ts';
import { HttpError, JSON_CONTENT_TYPE } from '../http/errors.ts';
import { type EndpointView, type Endpoints, messageId } from '../webhooks/endpoints.ts';
import { readDocument } from './body.ts';
import { apiBase } from './documents.ts';
import { quoted } from '../words.ts';

export const WEBHOOKS_PATH = '/webhooks';
const DEFAULT_PER_PAGE = 25;
const MAX_PER_PAGE = 100;

function invalid(message: string): HttpError {
  return new HttpError(400, 'invalid_parameter', message);
}

/**
 * `page` and `per_page` of a list of the extensions' own (webhooks, change requests), and the
 * other parameters it takes, each read by its function; any other is 400.
 */
export function pageOf(
  url: URL,
  others: Record<string, (value: string) => void> = {},
): { page: number; perPage: number } {
  let page = 1;
  let perPage = DEFAULT_PER_PAGE;
  for (const [name, value] of url.searchParams) {
    if (name === 'page') {
      const n = idFromText(value);
      if (n === undefined) throw invalid(`page must be a whole number >= 1 (got ${quoted(value)})`);
      page = n;
    } else if (name === 'per_page') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PER_PAGE)
        throw invalid(`per_page must be an integer from 1 to ${MAX_PER_PAGE} (got ${quoted(value)})`);
      perPage = Number(value);
    } else if (others[name]) others[name](value);
    else
      throw invalid(
        `unknown query parameter ${name}; this takes ${[...Object.keys(others), 'page', 'per_page'].join(', ')}`,
      );
  }
  return { page, perPage };
}

function noQuery(url: URL): void {
  const name = url.searchParams.keys().next();
  if (!name.done) throw invalid(`unknown query parameter ${name.value}`);
}

function idOf(c: Context): number {
  const id = idFromText(c.req.param('id') ?? '');
  if (id === undefined) throw new HttpError(404, 'not_found', `webhooks ${c.req.param('id')} not found`);
  return id;
}

export function endpointObject(view: EndpointView, base: string) {
  const { id, secret, created_date, modified_date, ...rest } = view;
  return {
    type: 'webhooks',
    id,
    attributes: {
      ...rest,
      created_date: atom(created_date),
      modified_date: atom(modified_date),
      ...(secret !== undefined && { secret }),
    },
    links: { self: `${base}${WEBHOOKS_PATH}/${id}` },
  };
}

/** The `data` member of a write's document: the endpoint's attributes. */
async function attributesIn(c: Context, limit: number): Promise<unknown> {
  const document = await readDocument(c, limit);
  const data = document.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    throw new HttpError(400, 'invalid_json', 'the body must be {"data": {"type": "webhooks", "attributes": {...}}}');
  if (data.type !== 'webhooks')
    throw new HttpError(409, 'type_mismatch', `data.type must be "webhooks" (got ${quoted(data.type)})`);
  const unknown = Object.keys(data).find((k) => !['type', 'id', 'attributes'].includes(k));
  if (unknown) throw new HttpError(400, 'unknown_field', `data.${unknown} is not a member of a webhook document`);
  return data.attributes ?? {};
}

function json(c: Context, body: unknown, status: 200 | 201 = 200, headers: Record<string, string> = {}) {
  return c.body(JSON.stringify(body), status, {
    'Content-Type': JSON_CONTENT_TYPE,
    'Cache-Control': 'no-store',
    ...headers,
  });
}

export function webhookRoutes({
  endpoints,
  basePath,
  trustProxy,
  maxBodyBytes,
}: {
  endpoints: Endpoints;
  basePath: string;
  trustProxy: number;
  maxBodyBytes: number;
}): Hono {
  const app = new Hono();
  const base = (c: Context) => apiBase(c, basePath, trustProxy);
  const owner = (c: Context) => c.get('auth').clientId;
  const one = `${WEBHOOKS_PATH}/:id`;

  app.get(WEBHOOKS_PATH, async (c) => {
    const { page, perPage } = pageOf(new URL(c.req.url));
    const { views, total } = await endpoints.list(owner(c), page, perPage);
    return json(c, {
      data: views.map((v) => endpointObject(v, base(c))),
      meta: { page, per_page: perPage, total, pages: Math.ceil(total / perPage) },
    });
  });
  app.post(WEBHOOKS_PATH, async (c) => {
    noQuery(new URL(c.req.url));
    const view = await endpoints.create(owner(c), c.get('auth').access, await attributesIn(c, maxBodyBytes));
    const object = endpointObject(view, base(c));
    return json(c, { data: object }, 201, { Location: object.links.self });
  });
  app.get(one, async (c) => {
    noQuery(new URL(c.req.url));
    return json(c, { data: endpointObject(await endpoints.get(owner(c), idOf(c)), base(c)) });
  });
  app.patch(one, async (c) => {
    noQuery(new URL(c.req.url));
    const id = idOf(c);
    const attributes = await attributesIn(c, maxBodyBytes);
    return json(c, {
      data: endpointObject(await endpoints.update(owner(c), c.get('auth').access, id, attributes), base(c)),
    });
  });
  app.delete(one, async (c) => {
    noQuery(new URL(c.req.url));
    await endpoints.remove(owner(c), idOf(c));
    return c.body(null, 204);
  });
  app.post(`${one}/rotate-secret`, async (c) => {
    noQuery(new URL(c.req.url));
    return json(c, { data: endpointObject(await endpoints.rotateSecret(owner(c), idOf(c)), base(c)) });
  });
  app.post(`${one}/replay`, async (c) => {
    noQuery(new URL(c.req.url));
    const id = idOf(c);
    const body = await readDocument(c, maxBodyBytes);
    const unknown = Object.keys(body).find((k) => k !== 'after');
    if (unknown) throw new HttpError(400, 'unknown_field', `${unknown} is not a member of a replay; it takes after`);
    if (typeof body.after !== 'string')
      throw invalid('after must be a cursor from this service, as a string (e.g. "1234")');
    return json(c, { meta: await endpoints.replay(owner(c), id, parseCursor(body.after, 'after')) });
  });
  app.get(`${one}/deliveries`, async (c) => {
    const { page, perPage } = pageOf(new URL(c.req.url));
    const { deliveries, total } = await endpoints.deliveries(owner(c), idOf(c), page, perPage);
    return json(c, {
      data: deliveries.map((d) => ({
        type: 'webhook_deliveries',
        id: messageId(d.webhook_id, d.seq),
        attributes: {
          change: String(d.seq),
          event_type: d.event_type,
          resource_type: d.resource_type,
          resource_id: d.resource_id,
          status: d.status,
          attempts: d.attempts,
          next_attempt_date: d.next_attempt_date && atom(d.next_attempt_date),
          created_date: atom(d.created_date),
          modified_date: atom(d.modified_date),
          attempt_log: d.attempt_log.map((a) => ({
            attempted_date: atom(a.attempted_date),
            status_code: a.status_code,
            error: a.error,
            latency_ms: a.latency_ms,
            response: a.response,
          })),
        },
      })),
      meta: { page, per_page: perPage, total, pages: Math.ceil(total / perPage) },
    });
  });
  return app;
}
