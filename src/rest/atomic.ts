/**
 * JSON:API Atomic Operations (https://jsonapi.org/ext/atomic) at `POST /operations`: several
 * writes of the old interface as one, all or nothing. Each operation is one the interface has
 * on its own path (an ADD, an UPDATE, a relationship's set, add, replace or remove, a
 * structure's items), checked by the same rules and roles; `lid` names a resource added earlier
 * in the request; `atomic:results` answers in order. When operations are refused, nothing is
 * written, and the answer names every one (./atomic-errors.ts): once the first is met, the
 * operations are tried again on their own (src/data/atomic-writes.ts), each on what the ones
 * before it did, and everything rolled back. An operation that names by its lid a resource whose
 * add was refused is not tried: what it would meet follows from that refusal.
 */
import type { Context } from 'hono';
import type { AtomicWriter } from '../data/atomic-writes.ts';
import { MAX_BULK_ROWS } from '../data/bulk-writes.ts';
import type { WriteOptions } from '../data/writes.ts';
import { ID_RANGE, idFromText, isId } from '../db/integers.ts';
import { HttpError } from '../http/errors.ts';
import {
  failureOf,
  OperationFailure,
  type Refusal,
  refusalAnswer,
  refusalOf,
  requestRefusal,
} from './atomic-errors.ts';
import { resourceByType } from '../resources/registry.ts';
import { authorizeRoute } from './authorize.ts';
import { identifiers, isObject, itemInputs, readDocument, toOneIdentifier, writeInput } from './body.ts';
import type { Documents } from './documents.ts';
import { REST_ROUTES, type RestOperation, type RestRoute } from './routes.ts';
import type { Access } from '../permissions/access.ts';
import type { RequestLoaders } from '../data/request.ts';
import type { Logger } from '../observability/logger.ts';
import { quoted } from '../words.ts';
import { needsApproval, ProposalRefused } from '../change-requests/approval.ts';

export const ATOMIC_EXTENSION = 'https://jsonapi.org/ext/atomic';
export const ATOMIC_MEDIA_TYPE = `application/vnd.api+json; ext="${ATOMIC_EXTENSION}"`;

/** What the atomic endpoint needs of the REST handlers of the request. */
export interface AtomicContext {
  writer: AtomicWriter;
  access: Access | undefined;
  maxBodyBytes: number;
  /** Where a trial that could not be completed is said (the answer then names the first refusal only). */
  logger: Logger;
  /** Loaders and documents for reading the answer, once the operations have committed. */
  request(): { loaders: RequestLoaders; docs: Documents };
  /** The operations as a change request (202), for a role that makes some of them only with approval (src/change-requests). */
  propose(operations: unknown[]): Promise<Response>;
}

interface Ref {
  type: string;
  id: number;
  relationship?: string;
}

/** A resource an operation added or updated (its result shows it); undefined for relationship operations. */
type Outcome = { type: string; id: number } | undefined;

/** A 400; `at` is where in the operation (`ref.id`), for the error's pointer. */
function bad(message: string, code: 'invalid_json' | 'invalid_relationship' = 'invalid_json', at?: string): HttpError {
  return new HttpError(400, code, message, {}, at);
}

/** The extension's media type, with the extension named (JSON:API 1.1 §"Extensions"). */
function requireAtomicType(c: Context): void {
  const type = c.req.header('content-type') ?? '';
  const ext = /;\s*ext\s*=\s*"?([^";]*)"?/i.exec(type)?.[1]?.split(/\s+/) ?? [];
  if (!/^application\/vnd\.api\+json\s*(;|$)/i.test(type) || !ext.includes(ATOMIC_EXTENSION))
    throw new HttpError(
      415,
      'unsupported_media_type',
      `POST /operations takes ${ATOMIC_MEDIA_TYPE} (got ${quoted(type || 'none')})`,
    );
}

/** The route of the old interface an operation stands for; 405 where the interface has none. */
function routeOf(type: string, operation: RestOperation, relationship: string | undefined, said: string): RestRoute {
  const route = REST_ROUTES.find(
    (r) => r.type === type && r.operation === operation && r.relationship === relationship,
  );
  if (!route) throw new HttpError(405, 'method_not_allowed', `${said} is not an operation of the interface`);
  return route;
}

/** The request's operations, or the HttpError that refuses the request (its media type, its body). */
async function operationsOf(c: Context, maxBodyBytes: number): Promise<unknown[]> {
  requireAtomicType(c);
  const document = await readDocument(c, maxBodyBytes);
  const operations = document['atomic:operations'];
  if (!Array.isArray(operations) || operations.length === 0)
    throw bad('the body must be {"atomic:operations": [operation, ...]} with at least one operation');
  if (operations.length > MAX_BULK_ROWS)
    throw bad(
      `a request takes at most ${MAX_BULK_ROWS} operations (got ${operations.length})`,
      'invalid_json',
      'atomic:operations',
    );
  return operations;
}

/**
 * Runs the request's operations in one transaction and answers their results in order: the
 * resource an `add` or `update` of a resource wrote, as its document shows it now; `{}` for the
 * others. Refused, it answers every operation refused (./atomic-errors.ts).
 */
export async function atomicOperations(c: Context, context: AtomicContext): Promise<Response> {
  let operations: unknown[];
  try {
    operations = await operationsOf(c, context.maxBodyBytes);
  } catch (error) {
    if (error instanceof HttpError) return refusalAnswer(c, [requestRefusal(error)]);
    throw error;
  }
  if (needsApproval(context.access, operations)) {
    try {
      return await context.propose(operations);
    } catch (error) {
      if (error instanceof ProposalRefused) return refusalAnswer(c, [refusalOf(error.failure, operations)]);
      throw error;
    }
  }
  let outcomes: Outcome[];
  try {
    outcomes = await context.writer.atomically(() => new OperationRunner(context).all(operations));
  } catch (error) {
    if (!(error instanceof OperationFailure)) throw error;
    return refusalAnswer(c, await everyRefusal(error, operations, context));
  }
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

/**
 * Every operation the request would have refused, `first` (the one it met) among them: the
 * operations tried again one by one, each on what those before it did, in a trial that writes
 * nothing. Just `first` when it was the last operation, or when the trial itself fails: the
 * request is refused all the same, with the refusal it met, and the log says why the others
 * are not listed (an outage, or a bug of the trial, which must not go unseen).
 */
async function everyRefusal(
  first: OperationFailure,
  operations: readonly unknown[],
  context: AtomicContext,
): Promise<Refusal[]> {
  const alone = [refusalOf(first, operations)];
  if (first.index === operations.length - 1) return alone;
  const untried = (error: unknown) => {
    context.logger.warn(
      { err: error },
      'POST /operations: the trial that names every refused operation failed; answered with the first',
    );
    return alone;
  };
  const runner = new OperationRunner(context);
  let failures: Map<number, unknown>;
  try {
    failures = await context.writer.failuresOfEach(operations.length, (i) => runner.tried(i, operations[i]));
  } catch (error) {
    return untried(error);
  }
  const found: OperationFailure[] = [];
  for (const failure of failures.values()) {
    if (failure instanceof OperationFailure) found.push(failure);
    // Anything but a refusal (an outage, a bug) leaves the trial's findings in doubt.
    else if (failure !== DEPENDS_ON_REFUSED) return untried(failure);
  }
  // The one met first is in the answer whatever the trial met (the data may have moved since).
  if (!found.some((failure) => failure.index === first.index)) found.push(first);
  return found.sort((a, b) => a.index - b.index).map((failure) => refusalOf(failure, operations));
}

/** What an operation that names by its lid a resource whose add was refused meets in a trial: it is not tried. */
const DEPENDS_ON_REFUSED = new Error('names a resource whose add was refused');

/**
 * One request's operations, in order, with the `lid`s of the resources added so far. Also runs
 * the operations of a change request (src/change-requests), which are such a request stored.
 */
export class OperationRunner {
  private readonly lids = new Map<string, Ref>();
  /** The lids of adds that were refused (in a trial, which goes on after them). */
  private readonly refusedLids = new Set<string>();
  /** Every resource an operation wrote so far (added, updated, or whose relationship changed), in order. */
  readonly touched: { type: string; id: number }[] = [];

  constructor(private readonly context: Pick<AtomicContext, 'writer' | 'access'>) {}

  /** Every operation in order, the first refused one thrown as an OperationFailure. */
  async all(operations: readonly unknown[]): Promise<Outcome[]> {
    const done: Outcome[] = [];
    for (const [index, operation] of operations.entries()) done.push(await this.tried(index, operation));
    return done;
  }

  /** One operation; refused, an OperationFailure naming it (an add's lid is then remembered as refused). */
  async tried(index: number, operation: unknown): Promise<Outcome> {
    try {
      const outcome = await this.operation(operation);
      if (outcome) this.touched.push(outcome);
      return outcome;
    } catch (error) {
      const lid =
        isObject(operation) && operation.op === 'add' && isObject(operation.data) ? operation.data.lid : undefined;
      if (typeof lid === 'string' && !this.lids.has(lid)) this.refusedLids.add(lid);
      throw failureOf(index, error);
    }
  }

  async operation(operation: unknown): Promise<Outcome> {
    if (!isObject(operation)) throw bad('an operation must be an object {"op": ..., "ref"?: ..., "data"?: ...}');
    const { op } = operation;
    if (op !== 'add' && op !== 'update' && op !== 'remove')
      throw bad(`op must be "add", "update" or "remove" (got ${quoted(op ?? null)})`, 'invalid_json', 'op');
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
      throw bad(
        `data must be a resource object of ${target.type}, the type of the resource it updates`,
        'invalid_json',
        'data',
      );
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
    if (operation.ref !== undefined)
      throw bad('an add of a resource has no ref: its data names the type', 'invalid_json', 'ref');
    if (!isObject(data) || typeof data.type !== 'string' || !resourceByType(data.type))
      throw bad(
        'data must be a resource object {"type": ..., "lid"?: ..., "attributes": {...}}',
        'invalid_json',
        'data',
      );
    const type = data.type;
    this.authorize(routeOf(type, 'add', undefined, `add of ${type}`));
    if (data.id !== undefined)
      throw new HttpError(
        403,
        'forbidden',
        'the server gives ids: name the new resource with a lid instead',
        {},
        'data.id',
      );
    const { lid, ...resource } = data;
    if (lid !== undefined && (typeof lid !== 'string' || lid === '' || this.lids.has(lid)))
      throw bad(`lid must be a string not used before in the request (got ${quoted(lid)})`, 'invalid_json', 'data.lid');
    const id = await this.context.writer.create(type, writeInput(resource, type, 'data'));
    if (typeof lid === 'string') this.lids.set(lid, { type, id });
    return { type, id };
  }

  private async relationship(op: string, ref: Ref, data: unknown, options: WriteOptions): Promise<Outcome> {
    this.touched.push({ type: ref.type, id: ref.id });
    const name = ref.relationship!;
    const rel = resourceByType(ref.type)!.relationships[name];
    if (!rel)
      throw new HttpError(400, 'unknown_field', `${name} is not a relationship of ${ref.type}`, {}, 'ref.relationship');
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
      throw bad(`meta must be {"version": N}, the version read (got ${quoted(meta)})`, 'invalid_json', 'meta');
    return { expectedVersion: version as number };
  }

  /** A resource named by `id` or by the `lid` of one added before. */
  private ref(value: unknown, where: string): Ref {
    if (!isObject(value) || typeof value.type !== 'string' || !resourceByType(value.type))
      throw bad(`${where} must name a resource {"type": ..., "id" or "lid": ...}`, 'invalid_json', where);
    const relationship = typeof value.relationship === 'string' ? value.relationship : undefined;
    if (value.lid !== undefined) return { ...this.lidOf(value.lid, value.type, where), relationship };
    const id = typeof value.id === 'string' ? idFromText(value.id) : value.id;
    if (!isId(id))
      throw bad(
        `${where}.id must be ${ID_RANGE}, the id of a resource of type ${value.type} (got ${quoted(value.id ?? null)})`,
        'invalid_json',
        `${where}.id`,
      );
    return { type: value.type, id, relationship };
  }

  private lidOf(lid: unknown, type: string, where: string): Ref {
    if (typeof lid === 'string' && this.refusedLids.has(lid)) throw DEPENDS_ON_REFUSED;
    const found = typeof lid === 'string' ? this.lids.get(lid) : undefined;
    if (!found || found.type !== type)
      throw bad(
        `${where}.lid ${quoted(lid)} is not the lid of a resource of type ${type} added earlier in the request`,
        'invalid_relationship',
        `${where}.lid`,
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
