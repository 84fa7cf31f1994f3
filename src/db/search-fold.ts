/**
 * How searched text is folded into the words of the search index: one definition, applied alike
 * to the stored text and to a search, on both databases. SQLite calls `searchFold` (registered as
 * SQL function `search_fold`, ./sqlite-functions.ts) from the triggers that feed its FTS5 index;
 * PostgreSQL has the same steps in SQL (`search_fold()`, migration `*_search_folding`), and a test
 * holds the two to the same answers (test/search-folding.test.ts).
 *
 * The steps, in order:
 * 1. Canonical decomposition (NFD), then the combining marks of MARKS removed: accents, cedillas,
 *    diaereses and rings go (é, è, ê, ë -> e; ç -> c; ñ -> n; ï -> i; ü -> u; å -> a).
 * 2. Lower case.
 * 3. The letters of LETTERS written as the letters a person types for them: ß and ẞ -> ss,
 *    æ -> ae, œ -> oe, ø -> o, the Dutch ĳ -> ij, the ligatures ﬁ, ﬂ, ﬀ, ﬃ, ﬄ, ﬅ, ﬆ, and a few
 *    letters without a decomposition (ł, đ, ð, þ, ı, ŀ, ſ, final ς). Not NFKD: it would also make
 *    words of ½, ², ™ and other symbols.
 * 4. Every run of characters that are neither letters nor decimal digits splits words: the
 *    apostrophes of l'épeautre and 't Hof (also ’ and ʼ) and the hyphens of Sint-Niklaas, like
 *    spaces, punctuation and the @ of an e-mail address. Letters are what Unicode calls
 *    Alphabetic, which is how the C library classes them for PostgreSQL ([:alnum:]): with the
 *    vowel signs of Indic scripts, Hebrew and Arabic points, Ⓐ and Ⅷ. Numbers that are not
 *    digits (½, ²) split words.
 *
 * Second spellings: a German writes ä, ö, ü as ae, oe, ue when the letter is missing (Mueller for
 * Müller), and a Scandinavian name's å and ø as aa and oe (Aalborg for Ålborg). So a word holding
 * ä, ö, ü, å or ø is indexed twice, once as step 1 folds it (muller) and once with those letters so
 * written (mueller), and a search word holding them looks for either spelling. Hence "Müller" is
 * found by Müller, Muller and Mueller, and the search "Müller" also finds a stored Mueller or
 * Muller. The converse is not done: "ue" typed or stored is not taken for ü, because most "ue"
 * are not umlauts (blue, Quelle, aktuell, Manuel, fondue, duel), and with words matched as
 * prefixes, "blue" would find Blume. Nor "oe" for ö, which is the Dutch oe of boek and goed ("bok"
 * would find boek). So Mueller and Muller do not find each other; each finds Müller.
 */

/**
 * The blocks of combining marks removed: accents of Latin, Greek and Cyrillic letters. Other
 * marks stay (Indic vowel signs, Hebrew points: part of their words).
 */
const MARK_BLOCKS = '\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f';
const MARKS = new RegExp(`[${MARK_BLOCKS}]+`, 'g');

/**
 * Letters written as others after lower case (both cases listed: a database whose lower() misses
 * one still folds it). Each replacement is plain ASCII, so the order of the replacements is free.
 */
export const LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  Æ: 'ae',
  œ: 'oe',
  Œ: 'oe',
  ø: 'o',
  Ø: 'o',
  ĳ: 'ij',
  Ĳ: 'ij',
  ﬀ: 'ff',
  ﬁ: 'fi',
  ﬂ: 'fl',
  ﬃ: 'ffi',
  ﬄ: 'ffl',
  ﬅ: 'st',
  ﬆ: 'st',
  ł: 'l',
  Ł: 'l',
  đ: 'd',
  Đ: 'd',
  ð: 'd',
  Ð: 'd',
  þ: 'th',
  Þ: 'th',
  ı: 'i',
  ŀ: 'l',
  Ŀ: 'l',
  ſ: 's',
  ς: 'σ',
  // A modifier letter, so a letter: as an apostrophe (l`ʼ`épeautre) it must split words.
  ʼ: ' ',
};
const LETTER = new RegExp(`[${Object.keys(LETTERS).join('')}]`, 'gu');

/** What the second spelling writes differently: ä, ö, ü (decomposed) as ae, oe, ue; å as aa; ø as oe. */
const SECOND_SPELLING = /[aouAOU]\u0308|[aA]\u030a|[øØ]/;

function secondSpelling(decomposed: string): string {
  return decomposed
    .replace(/([aouAOU])\u0308/g, '$1e')
    .replace(/([aA])\u030a/g, '$1a')
    .replace(/ø/g, 'oe')
    .replace(/Ø/g, 'Oe');
}

const NOT_ASCII = /[\u0080-\uffff]/;
const NOT_ASCII_WORDS = /[^a-z0-9]+/g;
const NOT_WORD = /[^\p{Alphabetic}\p{Nd}]+/u;

/** Steps 1 (after the decomposition) to 4: the words of decomposed text. */
function words(decomposed: string): string[] {
  const folded = decomposed
    .replace(MARKS, '')
    .toLowerCase()
    .replace(LETTER, (letter) => LETTERS[letter]!);
  return folded.split(NOT_WORD).filter((word) => word.length > 0);
}

/**
 * The words of `text` in order, each with its second spelling (the same word when it has none).
 * Both spellings have the same words at the same places: the second only writes letters as two.
 */
export function foldWords(text: string): { word: string; second: string }[] {
  const decomposed = text.normalize('NFD');
  const first = words(decomposed);
  const second = SECOND_SPELLING.test(decomposed) ? words(secondSpelling(decomposed)) : first;
  return first.map((word, i) => ({ word, second: second[i]! }));
}

/**
 * The index's words for stored text, separated by single spaces: every folded word, then the
 * second spellings that differ (so a word's count is not doubled when it has none). Text made of
 * these words alone, lower case: the FTS5 tokenizer ("ascii", which splits at ASCII spaces and
 * punctuation only) takes them as they are.
 */
export function searchFold(text: string): string {
  // Text in ASCII only has no mark, no letter of LETTERS and no second spelling: lowered and
  // split only (a sixth of the time; most stored text is such).
  if (!NOT_ASCII.test(text)) return text.toLowerCase().replace(NOT_ASCII_WORDS, ' ').trim();
  const all = foldWords(text);
  return [...all.map(({ word }) => word), ...all.filter((w) => w.second !== w.word).map((w) => w.second)].join(' ');
}
