/**
 * The JSON text of an answer, as `JSON.stringify` writes it, made without one JavaScript string
 * of a large answer's whole length.
 *
 * Why: V8 puts a string over 128 KB in its large-object space, which only a full collection
 * frees, and Node makes `JSON.stringify`'s result one flat string to write it. Under a stream of
 * large GraphQL answers (the benchmark's W2: 490 KB each, 40 a second) that garbage stood at
 * 30-40 MB between full collections and set the process's peak RSS, and writing them took a
 * third of the server's CPU per request (W2: 28.9 ms per request with one string, 17.9 ms in
 * chunks). A list whose text would be large is written an element at a time into UTF-8 chunks
 * instead: the pieces are short strings that die young, and the answer is one Buffer outside the
 * V8 heap.
 *
 * Small answers, and lists that are not large, keep V8's one-call `JSON.stringify`. Limit: an
 * element of a list is written by one call, so a single element whose own text is over 128 KB is
 * still one large string.
 */

/** Pieces are encoded to UTF-8 when they reach this many characters. */
const CHUNK_CHARS = 16 * 1024;
/**
 * A list whose text is estimated at a chunk or more (its first element's length times its
 * length) is written in chunks. Measured on answers of 34-58 KB (the benchmark's W1, W3, W4):
 * peaks 10-20 MB lower than with one string, the same CPU per request.
 */
export const LARGE_LIST_CHARS = CHUNK_CHARS;
/** How deep the walk looks for lists; below, a value is written by one `JSON.stringify` call. */
const MAX_DEPTH = 8;

/**
 * `value`'s JSON text: the string `JSON.stringify` makes, or, when a list in it is large, the
 * same text as UTF-8 bytes. For JSON data (what a GraphQL result is): plain objects and arrays,
 * strings, finite numbers, booleans, null; `toJSON` and `undefined` are honoured as
 * `JSON.stringify` honours them.
 */
export function jsonBody(value: unknown): string | Buffer<ArrayBuffer> {
  const text = new ChunkedText();
  write(value, text, 0);
  return text.finish();
}

/** Whether a list lies within the walk's depth (no list: the value is written by one call). */
function hasList(value: unknown, depth: number): boolean {
  if (!isWalkable(value) || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.length > 1;
  return Object.keys(value).some((key) => hasList((value as Record<string, unknown>)[key], depth + 1));
}

/** An object or array the walk may enter: not null, no `toJSON` of its own to defer to. */
function isWalkable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}

function write(value: unknown, text: ChunkedText, depth: number): void {
  if (!hasList(value, depth)) text.push(JSON.stringify(value) ?? 'null');
  else if (Array.isArray(value)) writeList(value, text);
  else writeObject(value as Record<string, unknown>, text, depth);
}

function writeObject(object: Record<string, unknown>, text: ChunkedText, depth: number): void {
  let separator = '{';
  for (const key of Object.keys(object)) {
    const member = object[key];
    // Left out, as JSON.stringify leaves them out of objects.
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    text.push(`${separator}${JSON.stringify(key)}:`);
    write(member, text, depth + 1);
    separator = ',';
  }
  text.push(separator === '{' ? '{}' : '}');
}

function writeList(list: unknown[], text: ChunkedText): void {
  const first = list.length === 0 ? '' : (JSON.stringify(list[0]) ?? 'null');
  if (first.length * list.length < LARGE_LIST_CHARS) {
    text.push(JSON.stringify(list));
    return;
  }
  text.push('[');
  text.push(first);
  for (let i = 1; i < list.length; i++) {
    text.push(',');
    text.push(JSON.stringify(list[i]) ?? 'null');
  }
  text.push(']');
}

/** Text pushed in pieces, kept as UTF-8 chunks of about CHUNK_CHARS. */
class ChunkedText {
  private pending: string[] = [];
  private pendingChars = 0;
  private readonly chunks: Buffer<ArrayBuffer>[] = [];
  private bytes = 0;

  push(piece: string): void {
    this.pending.push(piece);
    this.pendingChars += piece.length;
    if (this.pendingChars >= CHUNK_CHARS) this.flush();
  }

  /** The whole text: a string when it stayed within one chunk (one piece: that piece), else the chunks joined. */
  finish(): string | Buffer<ArrayBuffer> {
    if (this.chunks.length === 0) return this.pending.join('');
    this.flush();
    return Buffer.concat(this.chunks, this.bytes);
  }

  private flush(): void {
    const chunk = Buffer.from(this.pending.join(''), 'utf8');
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    this.pending = [];
    this.pendingChars = 0;
  }
}
