/**
 * The cells of the CSV files the data tools write (`npm run export -- --format csv`) and read
 * (`npm run import -- --from DIR`, `--from-csv FILE`), safe to open in a spreadsheet.
 *
 * A cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is a formula to Excel,
 * LibreOffice and Google Sheets (OWASP "CSV Injection"); Apple Numbers reads the full-width
 * `＝ ＋ － ＠` as those. Text that the database holds (a name a client wrote through the API) could
 * so run a command or send data away from the machine of whoever opens the export. The export
 * writes such text with a single quote before it, which a spreadsheet shows as text, and text that
 * begins with a quote gets one more: the import then takes exactly one quote off any text cell
 * that begins with a quote followed by one of these characters or by another quote, and every
 * value comes back as it was. A user's own CSV is read by the same rule.
 *
 * Only text is at risk: numbers, flags, dates and ids are written as the database gives them, by
 * the column's type (a price of -5 stays the number -5), and NDJSON is JSON, which no spreadsheet
 * evaluates.
 */
import { attributeParts, definition } from '../data/columns.ts';
import type { ScalarType } from '../resources/types.ts';

/** What begins a formula, and the quote that marks a neutralised cell (escaped too, to be undone without doubt). */
const AT_RISK = /^['=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Text as the export writes it in a cell: with a quote before it when a spreadsheet would take it for a formula. */
export function neutralised(text: string): string {
  return AT_RISK.test(text) ? `'${text}` : text;
}

/** A text cell as the import takes it: the export's quote taken off again. */
export function restored(cell: string): string {
  return cell.startsWith("'") && AT_RISK.test(cell.slice(1)) ? cell.slice(1) : cell;
}

export interface CsvColumn {
  /** Its header: the spec's name, `name.nl` for a part of localized text or of a small object. */
  name: string;
  /** The field of the flat record it comes from, and the part of it (`nl`), if any. */
  field: string;
  part?: string;
  /** Whether it holds text (neutralised), rather than a number, a flag, a date or ids. */
  text: boolean;
}

/** The CSV columns of a type's flat records with `fields`: an attribute of several parts becomes one column per part (`name.nl`). */
export function csvColumns(type: string, fields: readonly string[]): CsvColumn[] {
  const resource = definition(type);
  return fields.flatMap((field): CsvColumn[] => {
    const attribute = resource.attributes[field];
    if (!attribute) return [{ name: field, field, text: false }];
    if (attribute.type !== 'localized' && typeof attribute.type !== 'object')
      return [{ name: field, field, text: attribute.type === 'string' }];
    const type = attribute.type;
    return attributeParts(attribute).map(([part]) => {
      const scalar: ScalarType = type === 'localized' ? 'string' : (type.object[part] ?? 'string');
      return { name: `${field}.${part}`, field, part, text: scalar === 'string' };
    });
  });
}
