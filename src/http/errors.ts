import type { DomainError } from '../data/errors.ts';
import { count } from '../words.ts';

/** The media type of every JSON answer of the service (documents, errors, GraphQL over HTTP). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * The headers of every error answer of REST and the other routes (app.ts, `/operations`): JSON in
 * the contract's media type (rest.md "Documents"), as every REST answer. Errors quote what the
 * client sent (a path, a value): nosniff, so that no browser takes one for HTML.
 */
export const ERROR_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': JSON_CONTENT_TYPE,
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Errors that carry their HTTP answer, turned into a response in one place (app.onError).
 * Body shapes are those of the REST contract (rest.md "Error bodies").
 */
export type ErrorCode =
  | 'invalid_json'
  | 'invalid_parameter'
  | 'unknown_field'
  | 'missing_field'
  | 'invalid_attribute'
  | 'invalid_relationship'
  | 'type_mismatch'
  | 'conflict'
  | 'bom_cycle'
  | 'precondition_failed'
  | 'cursor_expired'
  | 'history_purged'
  | 'idempotency_key_in_use'
  | 'idempotency_key_reused'
  | 'forbidden'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    /** Shape B's code; `not_found` (every 404) is answered with shape A, which has none. */
    readonly code: ErrorCode | 'not_found',
    message: string,
    readonly headers: Record<string, string> = {},
    /** Where in the request document the fault is, as a path (`data.attributes.gtin`), when it is one place. */
    readonly at?: string,
  ) {
    super(message);
  }
}

/**
 * A data-layer error as the REST layer answers it (rest.md "Error bodies"): not found is shape A,
 * everything else shape B with the contract's code.
 */
export function fromDomainError(error: DomainError): HttpError {
  switch (error.kind) {
    case 'not_found':
      return new HttpError(404, 'not_found', error.message);
    case 'bad_input':
      return new HttpError(400, error.reason ?? 'invalid_attribute', error.message);
    case 'conflict':
      return new HttpError(409, 'conflict', error.message);
    case 'bom_cycle':
      return new HttpError(409, 'bom_cycle', error.message);
    case 'forbidden':
      return new HttpError(403, 'forbidden', error.message);
    case 'precondition_failed':
      return new HttpError(412, 'precondition_failed', error.message);
    case 'cursor_expired':
      return new HttpError(410, 'cursor_expired', error.message);
  }
}

/** Shape A, the spec's 404 body; `detail` names what was not found. */
export function shapeA(status: number, detail: string) {
  return { errors: { status, detail } };
}

export function shapeB(status: number, code: ErrorCode, message: string) {
  return { error: { code, http_code: status, message } };
}

/** A JSON:API error object (JSON:API 1.1 "Error Objects"), as `/operations` answers each refused operation. */
export interface ErrorObject {
  status: string;
  code: string;
  /** The same for every error of its code. */
  title: string;
  detail: string;
  source?: { pointer: string };
}

/** The title of each code's error objects: a short summary, the same for every error of the code. */
const TITLES: Record<HttpError['code'], string> = {
  invalid_json: 'Invalid JSON',
  invalid_parameter: 'Invalid parameter',
  unknown_field: 'Unknown field',
  missing_field: 'Missing field',
  invalid_attribute: 'Invalid attribute',
  invalid_relationship: 'Invalid relationship',
  type_mismatch: 'Type mismatch',
  conflict: 'Conflict',
  bom_cycle: 'Bill of materials cycle',
  precondition_failed: 'Precondition failed',
  cursor_expired: 'Cursor expired',
  history_purged: 'History purged',
  idempotency_key_in_use: 'Idempotency key in use',
  idempotency_key_reused: 'Idempotency key reused',
  forbidden: 'Forbidden',
  method_not_allowed: 'Method not allowed',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Payload too large',
  rate_limited: 'Rate limited',
  service_unavailable: 'Service unavailable',
  internal_error: 'Internal error',
  not_found: 'Not found',
};

/** An HttpError as a JSON:API error object, `pointer` naming where in the request document it is. */
export function errorObject(error: HttpError, pointer?: string): ErrorObject {
  const object: ErrorObject = {
    status: String(error.status),
    code: error.code,
    title: TITLES[error.code],
    detail: error.message,
  };
  if (pointer !== undefined) object.source = { pointer };
  return object;
}

/** A path in a request document (`data.relationships.unit.data.id`, `data[2].attributes`) as a JSON pointer (RFC 6901). */
export function pointerOf(path: string): string {
  return path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((part) => part !== '')
    .map((part) => `/${pointerToken(part)}`)
    .join('');
}

/** A member's name as one reference token of a JSON pointer (RFC 6901 §3: `~` is `~0`, `/` is `~1`). */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * A body over the limit (./body.ts reads no more of it than the limit, and throws the rest
 * away). The connection is closed after the answer.
 */
export function payloadTooLarge(maxBytes: number): never {
  throw new HttpError(413, 'payload_too_large', `the request body exceeds ${count(maxBytes, 'byte')}`, {
    Connection: 'close',
  });
}

/** Seconds a client is told to wait when the database is unavailable. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** The answer to a request that met a database outage (db/errors.ts decides what is one). */
export function serviceUnavailable(): HttpError {
  return new HttpError(503, 'service_unavailable', 'the database is unavailable; retry later', {
    'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS),
  });
}
