/**
 * Which columns an operation needs, per resource type: the union of the fields it selects on
 * that type anywhere in the document (fragments included). Loads read only those columns. A
 * plan is computed once per prepared operation (./prepared.ts: per schema and parsed document)
 * and reused by every request that sends it.
 */
import { TypeInfo, visit, visitWithTypeInfo, type DocumentNode, type GraphQLSchema } from 'graphql';
import {
  columnsOf,
  definition,
  relationshipIdColumns,
  type Column,
  type Fields,
  type RowsOf,
} from '../data/columns.ts';
import { attributeField } from '../resources/names.ts';

/** What a GraphQL field reads: an attribute or a relationship of its resource, by registry name. */
export type FieldSource = { attribute: string } | { relationship: string } | { ownerLink: string };

/** For a GraphQL object type that shows a resource: its resource type, and what its fields read. */
export interface FieldSources {
  type: string;
  fields: Map<string, FieldSource>;
}

/** Filled while the schema is generated: GraphQL type name -> what its fields read. */
export const fieldSources = new Map<string, FieldSources>();

export class ColumnPlan {
  private readonly cache = new Map<string, Column[]>();

  constructor(
    private readonly fields: ReadonlyMap<string, Required<Fields>>,
    /** A role's rows of each type (src/data/columns.ts RowsOf): a join's ids hold only the rows it sees. */
    private readonly rowsOf?: RowsOf,
  ) {}

  /** The columns to read for `type` (always at least `id`). */
  columns(type: string): Column[] {
    let columns = this.cache.get(type);
    if (!columns) {
      // Plain attributes come back under their GraphQL field names: those fields then need no
      // resolver, and graphql-jit reads them as properties.
      const resource = definition(type);
      const selected = this.fields.get(type) ?? { attributes: [], relationships: [], ownerLinks: [] };
      // Links in join tables come as id lists on the row, and their targets through the target
      // type's id loader: every load of a type at one level (a customer's account manager and
      // its two user lists) is then one statement.
      const joined = [...selected.relationships].filter(
        (name) => resource.relationships[name]!.storage.kind === 'join',
      );
      columns = [
        ...columnsOf(type, selected, (name, column) => attributeField(resource, name, column)),
        ...relationshipIdColumns(type, joined, this.rowsOf),
      ];
      this.cache.set(type, columns);
    }
    return columns;
  }
}

/** The plan of a document, worked out (kept by ./prepared.ts). */
export function planFor(schema: GraphQLSchema, document: DocumentNode, rowsOf?: RowsOf): ColumnPlan {
  const fields = new Map<string, { attributes: Set<string>; relationships: Set<string>; ownerLinks: Set<string> }>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const sources = parent && fieldSources.get(parent.name);
        const read = sources?.fields.get(node.name.value);
        if (!sources || !read) return;
        let entry = fields.get(sources.type);
        if (!entry)
          fields.set(
            sources.type,
            (entry = { attributes: new Set(), relationships: new Set(), ownerLinks: new Set() }),
          );
        if ('attribute' in read) entry.attributes.add(read.attribute);
        else if ('relationship' in read) entry.relationships.add(read.relationship);
        else entry.ownerLinks.add(read.ownerLink);
      },
    }),
  );
  return new ColumnPlan(fields, rowsOf);
}
