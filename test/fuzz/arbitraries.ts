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

/** Numbers, some only writable as raw text: past a double's range, past 2^53, more digits than kept. */
export const oddNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.integer(),
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
