/**
 * JSON:API Atomic Operations (https://jsonapi.org/ext/atomic) at `POST /operations`: several
 * writes of the old interface as one, all or nothing. Each operation is one the interface has
 * on its own path (an ADD, an UPDATE, a relationship's set, add, replace or remove, a
 * structure's items), checked by the same rules and roles; `lid` names a resource added earlier
 * in the request; `atomic:results` answers in order. An error is the interface's own (shape A or
 * B), its message starting with the operation's pointer (`/atomic:operations/3: ...`), and
 * nothing is written.
 */
import type { Context } from 'hono';
import type { BomWriter } from '../data/bom-writes.ts';
import { MAX_BULK_ROWS } from '../data/bulk-writes.ts';
import { DomainError } from '../data/errors.ts';
import type { WriteOptions } from '../data/writes.ts';
import { ID_RANGE, idFromText, isId } from '../db/integers.ts';
import { fromDomainError, HttpError } from '../http/errors.ts';
import { resourceByType } from '../resources/registry.ts';
import { authorizeRoute } from './authorize.ts';
import { identifiers, itemInputs, readDocument, toOneIdentifier, writeInput } from './body.ts';
import type { Documents } from './documents.ts';
import { REST_ROUTES, type RestOperation, type RestRoute } from './routes.ts';
import type { Access } from '../permissions/access.ts';
import type { RequestLoaders } from '../data/request.ts';

export const ATOMIC_EXTENSION = 'https://jsonapi.org/ext/atomic';
export const ATOMIC_MEDIA_TYPE = `application/vnd.api+json; ext="${ATOMIC_EXTENSION}"`;

/** What the atomic endpoint needs of the REST handlers of the request. */
export interface AtomicContext {
  writer: BomWriter;
  access: Access | undefined;
  maxBodyBytes: number;
  /** Loaders and documents for reading the answer, once the operations have committed. */
  request(): { loaders: RequestLoaders; docs: Documents };
}

interface Ref {
  type: string;
  id: number;
  relationship?: string;
}

/** A resource an operation added or updated (its result shows it); undefined for relationship operations. */
type Outcome = { type: string; id: number } | undefined;

function bad(message: string, code: 'invalid_json' | 'invalid_relationship' = 'invalid_json'): HttpError {
  return new HttpError(400, code, message);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The extension's media type, with the extension named (JSON:API 1.1 §"Extensions"). */
function requireAtomicType(c: Context): void {
  const type = c.req.header('content-type') ?? '';
  const ext = /;\s*ext\s*=\s*"?([^";]*)"?/i.exec(type)?.[1]?.split(/\s+/) ?? [];
  if (!/^application\/vnd\.api\+json\s*(;|$)/i.test(type) || !ext.includes(ATOMIC_EXTENSION))
    throw new HttpError(
      415,
      'unsupported_media_type',
      `POST /operations takes ${ATOMIC_MEDIA_TYPE} (got ${JSON.stringify(type || 'none')})`,
    );
}

/** An error of one operation, said of it: the interface's own error, its message led by the operation's pointer. */
function ofOperation(error: unknown, pointer: string): unknown {
  const http = error instanceof DomainError ? fromDomainError(error) : error;
  if (!(http instanceof HttpError)) return error;
  return new HttpError(http.status, http.code, `${pointer}: ${http.message}`, http.headers);
}

/** The route of the old interface an operation stands for; 405 where the interface has none. */
function routeOf(type: string, operation: RestOperation, relationship: string | undefined, said: string): RestRoute {
  const route = REST_ROUTES.find(
    (r) => r.type === type && r.operation === operation && r.relationship === relationship,
  );
  if (!route) throw new HttpError(405, 'method_not_allowed', `${said} is not an operation of the interface`);
  return route;
}

/**
 * Runs the request's operations in one transaction and answers their results in order: the
 * resource an `add` or `update` of a resource wrote, as its document shows it now; `{}` for the others.
 */
export async function atomicOperations(c: Context, context: AtomicContext): Promise<Response> {
  requireAtomicType(c);
  const document = await readDocument(c, context.maxBodyBytes);
  const operations = document['atomic:operations'];
  if (!Array.isArray(operations) || operations.length === 0)
    throw bad('the body must be {"atomic:operations": [operation, ...]} with at least one operation');
  if (operations.length > MAX_BULK_ROWS)
    throw bad(`a request takes at most ${MAX_BULK_ROWS} operations (got ${operations.length})`);
  const run = new OperationRunner(context);
  const outcomes = await context.writer.atomically(async () => {
    const done: Outcome[] = [];
    for (const [i, operation] of operations.entries()) {
      const pointer = `/atomic:operations/${i}`;
      try {
        done.push(await run.operation(operation));
      } catch (error) {
        throw ofOperation(error, pointer);
      }
    }
    return done;
  });
  const { loaders, docs } = context.request();
  const results = [];
  for (const outcome of outcomes) {
    if (!outcome) {
      results.push({});
      continue;
    }
    const row = await loaders.byId(outcome.type).load(outcome.id);
    results.push(row ? { data: docs.resources(outcome.type, [row])[0] } : {});
  }
  return c.body(JSON.stringify({ 'atomic:results': results }), 200, { 'Content-Type': ATOMIC_MEDIA_TYPE });
}

/** One request's operations, in order, with the `lid`s of the resources added so far. */
class OperationRunner {
  private readonly lids = new Map<string, Ref>();

  constructor(private readonly context: AtomicContext) {}

  async operation(operation: unknown): Promise<Outcome> {
    if (!isObject(operation)) throw bad('an operation must be an object {"op": ..., "ref"?: ..., "data"?: ...}');
    const { op } = operation;
    if (op !== 'add' && op !== 'update' && op !== 'remove')
      throw bad(`op must be "add", "update" or "remove" (got ${JSON.stringify(op ?? null)})`);
    const options = this.conditions(operation.meta);
    if (isObject(operation.ref) && operation.ref.relationship !== undefined)
      return this.relationship(op, this.ref(operation.ref, 'ref'), this.linkage(operation.data, 'data'), options);
    const data = this.resourceWithIds(operation.data);
    if (op === 'add') return this.add(operation, data);
    if (op === 'remove') {
      // The old interface removes no resource, only links and a structure's items.
      const ref = this.ref(operation.ref, 'ref');
      throw new HttpError(405, 'method_not_allowed', `remove of ${ref.type} is not an operation of the interface`);
    }
    const target = this.ref(operation.ref ?? data, operation.ref ? 'ref' : 'data');
    if (!isObject(data) || data.type !== target.type)
      throw bad(`data must be a resource object of ${target.type}, the type of the resource it updates`);
    this.authorize(routeOf(target.type, 'update', undefined, `update of ${target.type}`));
    await this.context.writer.update(
      target.type,
      target.id,
      // An id in data must be the resource's (409 type_mismatch otherwise), as on its own path.
      writeInput({ ...data, lid: undefined }, target.type, 'data', target.id),
      options,
    );
    return { type: target.type, id: target.id };
  }

  private async add(operation: Record<string, unknown>, data: unknown): Promise<Outcome> {
    if (operation.ref !== undefined) throw bad('an add of a resource has no ref: its data names the type');
    if (!isObject(data) || typeof data.type !== 'string' || !resourceByType(data.type))
      throw bad('data must be a resource object {"type": ..., "lid"?: ..., "attributes": {...}}');
    const type = data.type;
    this.authorize(routeOf(type, 'add', undefined, `add of ${type}`));
    if (data.id !== undefined)
      throw new HttpError(403, 'forbidden', 'the server gives ids: name the new resource with a lid instead');
    const { lid, ...resource } = data;
    if (lid !== undefined && (typeof lid !== 'string' || lid === '' || this.lids.has(lid)))
      throw bad(`lid must be a string not used before in the request (got ${JSON.stringify(lid)})`);
    const id = await this.context.writer.create(type, writeInput(resource, type, 'data'));
    if (typeof lid === 'string') this.lids.set(lid, { type, id });
    return { type, id };
  }

  private async relationship(op: string, ref: Ref, data: unknown, options: WriteOptions): Promise<Outcome> {
    const name = ref.relationship!;
    const rel = resourceByType(ref.type)!.relationships[name];
    if (!rel) throw new HttpError(400, 'unknown_field', `${name} is not a relationship of ${ref.type}`);
    const member = { data };
    const writer = this.context.writer;
    const said = `${op} of the relationship ${name} of ${ref.type}`;
    if (rel.storage.kind === 'children') {
      const operation = ({ add: 'add-items', update: 'rel-replace', remove: 'rel-remove' } as const)[op as 'add'];
      this.authorize(routeOf(ref.type, operation, name, said));
      // Full item objects, whose own relationships may name a product added before by its lid.
      const items = () =>
        itemInputs(Array.isArray(data) ? data.map((item) => this.resourceWithIds(item)) : data, 'data');
      if (op === 'add') await writer.addItems(ref.id, items(), options);
      else if (op === 'update') await writer.replaceItems(ref.id, items(), options);
      else await writer.removeItems(ref.id, identifiers(member, rel.target), options);
      return undefined;
    }
    if (rel.cardinality === 'to-one') {
      this.authorize(routeOf(ref.type, op === 'update' ? 'rel-set' : (`rel-${op}` as RestOperation), name, said));
      await writer.setToOne(ref.type, ref.id, name, toOneIdentifier(member, rel.target), options);
      return undefined;
    }
    const operation = ({ add: 'rel-add', update: 'rel-replace', remove: 'rel-remove' } as const)[op as 'add'];
    this.authorize(routeOf(ref.type, operation, name, said));
    const ids = identifiers(member, rel.target);
    const change = op === 'add' ? { add: ids } : op === 'update' ? { set: ids } : { remove: ids };
    await writer.changeToMany(ref.type, ref.id, name, change, options);
    return undefined;
  }

  /** What the role allows on the route, and what the interface always refuses there (403). */
  private authorize(route: RestRoute): void {
    authorizeRoute(this.context.access, route);
    if (route.refused) throw new HttpError(403, 'forbidden', route.refused);
  }

  /** `meta.version`: the version the operation expects the resource at (412 otherwise), as If-Match does. */
  private conditions(meta: unknown): WriteOptions {
    if (meta === undefined) return {};
    const version = isObject(meta) ? meta.version : undefined;
    if (!Number.isInteger(version) || (version as number) < 1)
      throw bad(`meta must be {"version": N}, the version read (got ${JSON.stringify(meta)})`);
    return { expectedVersion: version as number };
  }

  /** A resource named by `id` or by the `lid` of one added before. */
  private ref(value: unknown, where: string): Ref {
    if (!isObject(value) || typeof value.type !== 'string' || !resourceByType(value.type))
      throw bad(`${where} must name a resource {"type": ..., "id" or "lid": ...}`);
    const relationship = typeof value.relationship === 'string' ? value.relationship : undefined;
    if (value.lid !== undefined) return { ...this.lidOf(value.lid, value.type, where), relationship };
    const id = typeof value.id === 'string' ? idFromText(value.id) : value.id;
    if (!isId(id))
      throw bad(
        `${where}.id must be ${ID_RANGE}, the id of a resource of type ${value.type} (got ${JSON.stringify(value.id ?? null)})`,
      );
    return { type: value.type, id, relationship };
  }

  private lidOf(lid: unknown, type: string, where: string): Ref {
    const found = typeof lid === 'string' ? this.lids.get(lid) : undefined;
    if (!found || found.type !== type)
      throw bad(
        `${where}.lid ${JSON.stringify(lid)} is not the lid of a resource of type ${type} added earlier in the request`,
        'invalid_relationship',
      );
    return found;
  }

  /** Resource linkage (an identifier, null, or a list of them) with each `lid` replaced by the id it got. */
  private linkage(value: unknown, where: string): unknown {
    const identifier = (one: unknown, at: string): unknown =>
      isObject(one) && one.lid !== undefined && one.id === undefined && typeof one.type === 'string'
        ? { type: one.type, id: this.lidOf(one.lid, one.type, at).id }
        : one;
    return Array.isArray(value) ? value.map((v, i) => identifier(v, `${where}[${i}]`)) : identifier(value, where);
  }

  /** A resource object whose relationships name resources by `lid`, with their ids instead. */
  private resourceWithIds(data: unknown): unknown {
    if (!isObject(data) || !isObject(data.relationships)) return data;
    const relationships = Object.fromEntries(
      Object.entries(data.relationships).map(([name, member]) => [
        name,
        isObject(member) && 'data' in member
          ? { ...member, data: this.linkage(member.data, `data.relationships.${name}.data`) }
          : member,
      ]),
    );
    return { ...data, relationships };
  }
}
