/**
 * The clean-data rules on text values that have a standard form (the registry names one per
 * attribute: Attribute.format). Each rule is checked on every write path (src/data/validate.ts)
 * and on stored rows by `npm run check-data` (src/data/check-data.ts); a problem is said in words
 * that name what the value must be.
 *
 * The ISO code lists come from `validator` (kept up to date with the standards, which change:
 * a country code is assigned or withdrawn every few years); e-mail addresses are checked by it too,
 * as the HTML form rules and most mail systems read them. GS1 check digits are four lines.
 */
import validator from 'validator';
import type { Format } from '../resources/types.ts';

/** `digits` with its GS1 check digit appended (GTIN-8/12/13/14, GLN: the same mod-10 rule). */
export function withCheckDigit(digits: string): string {
  const sum = [...digits].reverse().reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return digits + String((10 - (sum % 10)) % 10);
}

function gs1(value: string, lengths: readonly number[], name: string): string | undefined {
  if (!/^\d+$/.test(value) || !lengths.includes(value.length)) {
    const count = lengths.length === 1 ? `${lengths[0]}` : `${lengths.slice(0, -1).join(', ')} or ${lengths.at(-1)}`;
    return `must be a ${name} of ${count} digits`;
  }
  const expected = withCheckDigit(value.slice(0, -1)).at(-1);
  return expected === value.at(-1) ? undefined : `has a wrong GS1 check digit (the ${name} would end in ${expected})`;
}

const RULES: Record<Format, (value: string) => string | undefined> = {
  gtin: (v) => gs1(v, [8, 12, 13, 14], 'GTIN'),
  gln: (v) => gs1(v, [13], 'GLN'),
  email: (v) => (validator.isEmail(v) ? undefined : 'must be an e-mail address'),
  country: (v) =>
    /^[A-Z]{2}$/.test(v) && validator.isISO31661Alpha2(v)
      ? undefined
      : 'must be an ISO 3166-1 alpha-2 country code, such as BE',
  language: (v) =>
    /^[a-z]{2}$/.test(v) && validator.isISO6391(v) ? undefined : 'must be an ISO 639-1 language code, such as nl',
  currency: (v) =>
    /^[A-Z]{3}$/.test(v) && validator.isISO4217(v) ? undefined : 'must be an ISO 4217 currency code, such as EUR',
};

const NOTES: Record<Format, string> = {
  gtin: 'A GTIN of 8, 12, 13 or 14 digits with a valid GS1 check digit.',
  gln: 'A GLN of 13 digits with a valid GS1 check digit.',
  email: 'An e-mail address.',
  country: 'An ISO 3166-1 alpha-2 country code in capitals (BE).',
  language: 'An ISO 639-1 language code in small letters (nl).',
  currency: 'An ISO 4217 currency code in capitals (EUR).',
};

/**
 * The rule of a format as JSON Schema says it (OpenAPI shows it): `email` is a format JSON Schema
 * knows; the others are named by a pattern of their form (the check digit and the ISO lists are
 * said in words: formatNote).
 */
export function formatSchema(format: Format): { format: string } | { pattern: string } {
  const patterns: Record<Exclude<Format, 'email'>, string> = {
    gtin: '^(\\d{8}|\\d{12,14})$',
    gln: '^\\d{13}$',
    country: '^[A-Z]{2}$',
    language: '^[a-z]{2}$',
    currency: '^[A-Z]{3}$',
  };
  return format === 'email' ? { format } : { pattern: patterns[format] };
}

/** The rule of `format` in a sentence, for the API documents. */
export function formatNote(format: Format): string {
  return NOTES[format];
}

/** What is wrong with `value` as `format` requires it, or undefined when it is right. */
export function formatProblem(format: Format, value: string): string | undefined {
  return RULES[format](value);
}
