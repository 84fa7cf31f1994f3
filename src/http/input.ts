/**
 * Input the database cannot store is bad input, refused before it reaches the database: a NUL
 * character (PostgreSQL rejects it in text; SQLite would cut strings at it) and text that is not
 * valid Unicode (malformed percent-encoding, invalid UTF-8 bytes, lone surrogates), which would
 * otherwise be replaced silently and stored as something the client never sent.
 */
import type { MiddlewareHandler } from 'hono';
import { unstorableText } from '../db/text.ts';
import { HttpError } from './errors.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes bytes as UTF-8, or undefined when they are not valid UTF-8. */
export function decodeUtf8(bytes: ArrayBuffer | Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Decodes one percent-encoded component (`+` is a space, as in forms and query strings), or undefined when malformed. */
export function decodeComponent(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * Refuses, on every route, a path or query string whose percent-encoding is malformed or decodes
 * to something unstorable (400 `invalid_parameter`). Most URLs carry no `%` and cost nothing.
 */
export function rejectUnstorableUrls(): MiddlewareHandler {
  return async (c, next) => {
    const url = c.req.url;
    if (url.includes('%')) {
      const { pathname, search } = new URL(url);
      for (const part of [...pathname.split('/'), ...search.slice(1).split(/[&=]/)]) {
        const decoded = decodeComponent(part);
        const problem = decoded === undefined ? 'is not valid percent-encoded UTF-8' : unstorableText(decoded);
        if (problem) throw new HttpError(400, 'invalid_parameter', `the request URL ${problem}`);
      }
    }
    await next();
  };
}
