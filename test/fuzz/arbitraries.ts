/**
 * What the fuzzers throw at both APIs: JSON of every shape, strings that databases and parsers
 * trip on, numbers past what a double holds, deep nesting, duplicate keys, and values that are
 * nearly right. JSON that JSON.stringify cannot write (1e400, duplicate keys, lone surrogates) is
 * written as raw text: a value holds a marker, which `rawJson` replaces by the text.
 */
import fc from 'fast-check';

/** Strings a parser, a database or a log might mishandle. */
const ODD_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\u200f\u202eRTL',
  '\ufeffBOM',
  '\u2028\u2029',
  'e\u0301\u0301\u0301',
  '😀👍🏽‍🔥',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  "' OR 1=1--",
  '"; DROP TABLE products; --',
  '%00',
  '%',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, sent as text
  '${7*7}',
  '__proto__',
  'constructor',
  'toString',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '0x10',
  '１２３',
  'null',
  'true',
  'x'.repeat(4001),
];

export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) },
);

const MARK = '\u0001raw:';

/** A value that JSON text holds as `text` verbatim. */
export const raw = (text: string): string => `${MARK}${text}\u0001`;

/**
 * Integers at the edges of what the databases, JSON and doubles hold: 32 bits (PostgreSQL's
 * `integer`, every id and version), 2^53, negatives, -0, and past a double (1e309 parses as
 * Infinity).
 */
export const integerBoundary: fc.Arbitrary<unknown> = fc.constantFrom(
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  -(2 ** 53),
  -1,
  0,
  -0,
  raw('9007199254740993'),
  raw('1e309'),
  raw('-1e309'),
  raw('2147483648.0'),
  raw('-0.0'),
);

/** The same edges as text: in paths, query strings, cursors and headers. */
export const integerBoundaryText: fc.Arbitrary<string> = fc.constantFrom(
  '2147483647',
  '2147483648',
  '-2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '99999999999999999999',
  '-1',
  '0',
  '-0',
  '1e309',
  '2147483647.0',
  '+1',
  '00000000001',
  '0x7fffffff',
);

/** Numbers, some only writable as raw text: past a double's range, past 2^53, more digits than kept. */
export const oddNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
  integerBoundary,
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(
    0,
    -0,
    1,
    -1,
    0.1,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    1e21,
    1.5e-7,
  ),
  fc.constantFrom(
    raw('1e400'),
    raw('-1e400'),
    raw('123456789012345678901234567890'),
    raw('0.1000000000000000000001'),
    raw('1E2'),
    raw('-0.0'),
  ),
);

/** Any JSON value, some deeply nested, with odd strings as values and as keys. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    oddNumber,
    oddString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(oddString, fc.constantFrom('data', 'type', 'id', 'attributes', 'relationships', 'meta')),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** Arrays or objects nested `depth` deep: for parsers and validators that recurse. */
export const deepNesting: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 500, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) =>
    raw(arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  );

/** JSON text of a value, with its raw markers replaced by their text. */
export function rawJson(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001raw:((?:[^"\\]|\\.)*)\\u0001"/g, (_, text: string) =>
    JSON.parse(`"${text}"`),
  );
}

/** An object's JSON text with one of its keys given twice (JSON.parse keeps the last). */
export function withDuplicateKey(text: string, key: string, value: unknown): string {
  return text.startsWith('{') ? `{${JSON.stringify(key)}:${rawJson(value)},${text.slice(1)}` : text;
}

/**
 * Request headers a client may send, with values right, wrong and odd: conditional requests,
 * idempotency keys, content negotiation, proxies' forwarding headers, tracing, ranges. Each case
 * sends a few of them.
 */
const HEADER_VALUES: Record<string, fc.Arbitrary<string>> = {
  'If-Match': fc.constantFrom('*', '"1-00000000"', 'W/"1-x"', '"2147483648-x"', '"x", "y"', 'garbage', ''),
  'If-None-Match': fc.constantFrom('*', '"1-00000000"', 'W/"x"', '"a",W/"b"', 'garbage', ''),
  'If-Modified-Since': fc.constantFrom(
    'Wed, 21 Oct 2015 07:28:00 GMT',
    'Sun, 06 Nov 2994 08:49:37 GMT',
    'yesterday',
    '',
  ),
  'If-Unmodified-Since': fc.constantFrom(
    'Wed, 21 Oct 2015 07:28:00 GMT',
    'Sun, 06 Nov 2994 08:49:37 GMT',
    'not a date',
    '0',
  ),
  'If-Range': fc.constantFrom('"1-x"', 'Wed, 21 Oct 2015 07:28:00 GMT', 'x'),
  Range: fc.constantFrom('bytes=0-10', 'bytes=-1', 'items=0-9', 'bytes=9007199254740993-'),
  'Idempotency-Key': fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('', 'x'.repeat(300), 'k-1')),
  Accept: fc.constantFrom(
    '*/*',
    'application/json',
    'application/vnd.api+json',
    'text/html',
    'application/xml',
    'application/graphql-response+json',
    'application/json;q=0',
    '',
  ),
  'Accept-Encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*;q=0'),
  'Accept-Language': fc.constantFrom('fr', 'nl-BE,nl;q=0.9', '*', 'xx'),
  'Content-Encoding': fc.constantFrom('gzip', 'deflate', 'identity', 'br'),
  'X-Forwarded-For': fc.constantFrom('1.2.3.4', '1.2.3.4, 5.6.7.8', 'not-an-ip', '::1', ''),
  'X-Forwarded-Proto': fc.constantFrom('https', 'http', 'gopher', ''),
  'X-Forwarded-Host': fc.constantFrom('evil.example', 'a b', ''),
  Forwarded: fc.constantFrom('for=1.2.3.4;proto=https', 'garbage'),
  Prefer: fc.constantFrom('return=minimal', 'respond-async', 'wait=1'),
  traceparent: fc.constantFrom('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-0-0-0', 'garbage'),
  Origin: fc.constantFrom('http://evil.example', 'null'),
  Cookie: fc.constantFrom('a=b', 'session=1'),
  'X-HTTP-Method-Override': fc.constantFrom('DELETE', 'GET', 'PATCH'),
};

/** A few request headers (names as clients spell them), each with a value that is right, wrong or odd. */
export const oddHeaders: fc.Arbitrary<Record<string, string>> = fc
  .uniqueArray(
    fc.constantFrom(...Object.keys(HEADER_VALUES)).chain((name) =>
      fc
        .oneof(
          { weight: 4, arbitrary: HEADER_VALUES[name]! },
          { weight: 1, arbitrary: integerBoundaryText },
          // Header values are Latin-1 text without line breaks: what a client can send at all.
          { weight: 1, arbitrary: oddString.filter((v) => /^[\x20-\x7e\x80-\xff]*$/.test(v) && v.trim() === v) },
        )
        .map((value) => [name, value] as const),
    ),
    { maxLength: 3, selector: ([name]) => name },
  )
  .map((pairs) => Object.fromEntries(pairs));
