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
  | 'forbidden'
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'rate_limited'
  | 'internal_error';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Shape A, the spec's 404 body; `detail` names what was not found. */
export function shapeA(status: number, detail: string) {
  return { errors: { status, detail } };
}

export function shapeB(status: number, code: ErrorCode, message: string) {
  return { error: { code, http_code: status, message } };
}
