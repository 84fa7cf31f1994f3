/**
 * The stored rows that break a clean-data rule (src/data/validate.ts ruleProblem): rows written
 * before the rules existed, or imported with `--accept-invalid`. Reads are never refused for
 * them; `npm run check-data` lists them so that they can be put right.
 */
import { columnsOf, definition } from '../data/columns.ts';
import { attributesOf } from '../data/forms.ts';
import { type DataSource, pagesById } from '../data/load.ts';
import { ruleProblem } from '../data/validate.ts';
import type { Attribute } from '../resources/types.ts';

export interface StoredProblem {
  type: string;
  id: number;
  /** The attribute, by the spec's name. */
  field: string;
  problem: string;
}

/** Rows read per statement. */
const PAGE = 1000;

/** Whether any value of the attribute could break a rule (ruleProblem says nothing of the others). */
function hasRules(attribute: Attribute): boolean {
  return (
    attribute.write === 'client' &&
    (attribute.format !== undefined ||
      attribute.minimum !== undefined ||
      attribute.exclusiveMinimum !== undefined ||
      attribute.maximum !== undefined ||
      (attribute.type === 'string' && (attribute.unique || attribute.required)))
  );
}

/** Each stored row of `types` that breaks a rule, once per attribute it breaks, by type and id. */
export async function* storedProblems(db: DataSource, types: readonly string[]): AsyncGenerator<StoredProblem> {
  for (const type of types) {
    const resource = definition(type);
    const checked = Object.entries(resource.attributes).filter(([, attribute]) => hasRules(attribute));
    if (checked.length === 0) continue;
    const columns = columnsOf(type, { attributes: checked.map(([name]) => name), relationships: [] });
    for await (const rows of pagesById(db, type, columns, PAGE)) {
      for (const row of rows) {
        const values = attributesOf(resource, row);
        for (const [name, attribute] of checked) {
          const problem = ruleProblem(attribute, values[name]);
          if (problem) yield { type, id: row.id, field: name, problem };
        }
      }
    }
  }
}
