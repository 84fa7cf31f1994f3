/**
 * How `POST /operations` (./atomic.ts) refuses a request: a JSON:API error document, as the Atomic
 * Operations extension shows its errors, with one error object for each operation refused, in
 * their order, each pointing at the operation and, where the fault is one member, at it
 * (`/atomic:operations/1/data/attributes/gtin`):
 *
 *     {"errors": [{"status": "400", "code": "invalid_attribute", "title": "Invalid attribute",
 *                  "detail": "gtin must be a GTIN ...", "source": {"pointer": "/atomic:operations/1/data/attributes/gtin"}}, ...],
 *      "error": {"code": "invalid_attribute", "http_code": 400, "message": "/atomic:operations/1: gtin must be a GTIN ..."}}
 *
 * `status` and `code` are what the same write answers on its own path. The answer's status is
 * that of the first error (what the request met first, and what the endpoint answered before it
 * listed every error); `error` is that first error in the interface's shape B, message led by the
 * operation's pointer, as the endpoint answered until then, so that a client written for it reads
 * on. At most MAX_LISTED_ERRORS error objects; `meta.omitted_errors` counts the rest.
 */
import type { Context } from 'hono';
import { DomainError } from '../data/errors.ts';
import { MAX_LISTED_ERRORS } from '../data/error-list.ts';
import { ERROR_HEADERS, errorObject, fromDomainError, HttpError, pointerOf, pointerToken } from '../http/errors.ts';
import { resourceByType } from '../resources/registry.ts';
import { isObject } from './body.ts';

/** An error of one operation of the request, by its index. */
export class OperationFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: DomainError | HttpError,
  ) {
    super(error.message);
  }
}

/** The error an operation's write threw, as an OperationFailure; anything else (an outage) as it is. */
export function failureOf(index: number, error: unknown): unknown {
  return error instanceof DomainError || error instanceof HttpError ? new OperationFailure(index, error) : error;
}

/**
 * Where in an operation a data-layer error's field is: an attribute or relationship of the
 * resource in its `data`, an item of a structure's `items` (`items[2].product`), or the
 * relationship's `data`; '' (the operation itself) when it is none of these.
 */
function fieldPointer(operation: unknown, field: string | undefined): string {
  if (!field || !isObject(operation)) return '';
  const ref = isObject(operation.ref) ? operation.ref : undefined;
  if (typeof ref?.relationship === 'string') {
    const item = /^items\[(\d+)\]\.(.+)$/s.exec(field);
    const given = item && Array.isArray(operation.data) ? operation.data[Number(item[1])] : undefined;
    return item ? `/data/${item[1]}${memberPointer('product_structure_items', item[2]!, given)}` : '/data';
  }
  const data = isObject(operation.data) ? operation.data : undefined;
  const type = data?.type ?? ref?.type;
  return typeof type === 'string' ? `/data${memberPointer(type, field, data)}` : '';
}

/**
 * A field of a resource object of `type` (`shelf_life.value`, `unit`) as a pointer into the
 * object `given`; a member the type does not have (an unknown attribute, `"a/b~c"`) by its name
 * whole, where the object gives it; '' for none of its members.
 */
function memberPointer(type: string, field: string, given: unknown): string {
  const resource = resourceByType(type);
  for (const member of ['attributes', 'relationships'] as const) {
    const members = isObject(given) ? given[member] : undefined;
    if (!resource?.[member][field] && isObject(members) && Object.hasOwn(members, field))
      return `/${member}/${pointerToken(field)}`;
  }
  const name = /^[^.[]*/.exec(field)![0];
  if (resource?.attributes[name]) return `/attributes${pointerOf(field)}`;
  if (resource?.relationships[name]) return `/relationships/${pointerToken(name)}`;
  return '';
}

/** What is said of one refused operation (or, without an index, of the request as a whole). */
export interface Refusal {
  error: HttpError;
  /** The operation's index in `atomic:operations`. */
  index?: number;
  /** Where in the request document the fault is. */
  pointer?: string;
}

/** An operation's failure as a refusal, pointing as close to the fault as it can. */
export function refusalOf(failure: OperationFailure, operations: readonly unknown[]): Refusal {
  const { index, error } = failure;
  const at = `/atomic:operations/${index}`;
  if (error instanceof HttpError)
    return { error, index, pointer: at + (error.at === undefined ? '' : pointerOf(error.at)) };
  return { error: fromDomainError(error), index, pointer: at + fieldPointer(operations[index], error.field) };
}

/** A refusal of the request as a whole (its media type, its body): a pointer where the error names a place. */
export function requestRefusal(error: HttpError): Refusal {
  return { error, pointer: error.at === undefined ? undefined : pointerOf(error.at) };
}

/** The answer that refuses the request: every refusal (at most MAX_LISTED_ERRORS), nothing written. */
export function refusalAnswer(c: Context, refusals: readonly Refusal[]): Response {
  const listed = refusals.slice(0, MAX_LISTED_ERRORS);
  const omitted = refusals.length - listed.length;
  const first = listed[0]!;
  const { status, code, message, headers } = first.error;
  const body = {
    errors: listed.map(({ error, pointer }) => errorObject(error, pointer)),
    ...(omitted > 0 ? { meta: { omitted_errors: omitted } } : {}),
    error: {
      code,
      http_code: status,
      message: first.index === undefined ? message : `/atomic:operations/${first.index}: ${message}`,
    },
  };
  return c.body(JSON.stringify(body), status as 400, { ...ERROR_HEADERS, ...headers });
}
