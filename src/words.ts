/**
 * Words of messages, in one place: a count in the number it takes (a message built from a limit
 * an operator sets, what a command did), and a value a client sent as a message quotes it.
 */

/** `count(1, 'row')` is "1 row", `count(2, 'row')` "2 rows"; `plural` where adding "s" is wrong. */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** The most characters of a client's text a message quotes: a value of 10 KB is not said back whole. */
export const QUOTED_CHARACTERS = 40;

/**
 * A value a client sent, as a message quotes it (`got ...`): text in JSON quotes, cut after
 * QUOTED_CHARACTERS characters ("..."); a number, boolean or null as JSON; a date as ISO 8601; a
 * list or an object by what it is, never written out (one may be nested thousands deep).
 */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(cut(value));
  if (Array.isArray(value)) return `a list of ${count(value.length, 'item')}`;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object') return 'an object';
  return String(value);
}

/** A client's text cut after QUOTED_CHARACTERS characters ("..."), for a message that shows it without quotes (a number's digits). */
export function cut(text: string): string {
  return text.length > QUOTED_CHARACTERS ? `${text.slice(0, QUOTED_CHARACTERS)}...` : text;
}
