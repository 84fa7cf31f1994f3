/**
 * What every answer of /graphql shares, whichever module makes it (./http.ts, ./operation.ts):
 * the media type an Accept header negotiates, and the body of a refusal.
 */
import { JSON_CONTENT_TYPE } from '../http/errors.ts';

/**
 * The media type graphql-http gives a successful answer for an Accept header it took (it refuses
 * the others with 406 before any operation runs): its rule, the first entry it can serve wins.
 */
export function successMediaType(accept: string | null): string {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (type === 'application/graphql-response+json' && charset === 'charset=utf-8')
      return 'application/graphql-response+json; charset=utf-8';
    if (
      (type === 'application/json' || type === 'application/*' || type === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    )
      break;
  }
  return JSON_CONTENT_TYPE;
}

/** A refusal's body: GraphQL errors, one, with its code. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}
