/**
 * Text the databases cannot store as sent: a NUL character (PostgreSQL rejects it in text; SQLite
 * would cut strings at it) and text that is not valid Unicode (lone surrogates), which a driver
 * would replace silently, storing something the client never sent. Every layer that takes text
 * from a client (URLs, bodies, GraphQL arguments, token requests) refuses it with this reason.
 */

/** Why a string cannot be stored, or undefined when it can. */
export function unstorableText(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character';
  if (!text.isWellFormed()) return 'is not valid Unicode';
  return undefined;
}
