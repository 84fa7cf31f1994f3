/**
 * What every answer of /graphql shares, whichever module makes it (./http.ts, ./sse.ts): the
 * media type an Accept header negotiates, and the body of a refusal.
 */
import { JSON_CONTENT_TYPE } from '../http/errors.ts';

export const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json; charset=utf-8';

/**
 * The media type of an answer for an Accept header, the GraphQL over HTTP spec's way: the first
 * entry this endpoint can serve wins (application/graphql-response+json, or JSON for
 * application/json and the wildcards), in UTF-8; undefined when none can be served (406).
 */
export function negotiated(accept: string | null): string | undefined {
  for (const entry of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [type, ...params] = entry.split(';');
    const charset = params.find((p) => p.includes('charset=')) ?? 'charset=utf-8';
    if (type === 'application/graphql-response+json' && charset === 'charset=utf-8') return GRAPHQL_RESPONSE_TYPE;
    if (
      (type === 'application/json' || type === 'application/*' || type === '*/*') &&
      (charset === 'charset=utf-8' || charset === 'charset=utf8')
    )
      return JSON_CONTENT_TYPE;
  }
  return undefined;
}

/** The media type of an answer whatever the Accept header: the negotiated one, else JSON. */
export function successMediaType(accept: string | null): string {
  return negotiated(accept) ?? JSON_CONTENT_TYPE;
}

/** A refusal's body: GraphQL errors, one, with its code. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ errors: [{ message, extensions: { code } }] });
}
