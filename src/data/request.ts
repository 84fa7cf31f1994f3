/**
 * Per-request DataLoaders over the batch loads (./load.ts), for surfaces that need whole
 * resources rather than a selection: the REST layer's documents and `include`. Every load of a
 * type made while a request is answered at one level is one statement, whatever the number of
 * resources, and reads the resources with the ids of all their relationships. (GraphQL wraps the
 * same batch loads in Pothos's loaders, with only the selected columns.)
 */
import DataLoader from 'dataloader';
import { allFields, columnsOf, definition, relationshipIdColumns, type Column } from './columns.ts';
import type { Access } from '../permissions/access.ts';
import { rowsByIds, type DataSource, type Row } from './load.ts';
import { tracedBatch } from '../observability/tracing.ts';

/** DataLoaders by key, each made on first use: one request's batching and caching. */
export class LoaderMap {
  private readonly loaders = new Map<string, DataLoader<number | string, unknown>>();

  /** The loader of `key`, made on first use: keys are ids, or the values of a unique attribute. */
  get<V, K extends number | string = number>(
    key: string,
    batch: (keys: readonly K[]) => Promise<V[]>,
  ): DataLoader<K, V> {
    let loader = this.loaders.get(key) as DataLoader<K, V> | undefined;
    if (!loader) {
      loader = new DataLoader<K, V>(tracedBatch(key, batch));
      this.loaders.set(key, loader as DataLoader<number | string, unknown>);
    }
    return loader;
  }
}

export class RequestLoaders {
  private readonly loaders = new LoaderMap();

  constructor(readonly source: DataSource) {}

  /**
   * Every column of a type and the ids of every relationship (what a document shows), so that one
   * statement reads whole resources.
   */
  static columns(type: string): Column[] {
    let columns = allColumns.get(type);
    if (!columns) {
      const fields = allFields(type);
      allColumns.set(
        type,
        (columns = [...columnsOf(type, fields), ...relationshipIdColumns(type, [...fields.relationships])]),
      );
    }
    return columns;
  }

  /** A whole resource by id, or null (also when the reader's role may not see it). */
  byId(type: string): DataLoader<number, Row | null> {
    return this.loaders.get(`id:${type}`, (ids) => rowsByIds(this.source, type, ids, this.columns(type)));
  }

  /**
   * RequestLoaders.columns as the reader's role sees the relationships: related rows it may not
   * see left out, in the same statement (src/data/columns.ts relationshipIdColumns).
   */
  columns(type: string): Column[] {
    return RequestLoaders.columnsFor(type, this.source.access);
  }

  /** RequestLoaders.columns as a role (none: admin) sees the relationships. */
  static columnsFor(type: string, access: Access | undefined): Column[] {
    if (!access?.dependsOnOthers(type)) return RequestLoaders.columns(type);
    let byType = roleColumns.get(access);
    if (!byType) roleColumns.set(access, (byType = new Map()));
    let columns = byType.get(type);
    if (!columns) {
      const fields = allFields(type);
      const rowsOf = (target: string) => access.rowFilter(target);
      const related = relationshipIdColumns(type, [...fields.relationships], rowsOf);
      const replaced = new Set(related.map((c) => c.name));
      columns = [...columnsOf(type, fields).filter((c) => !replaced.has(c.name)), ...related];
      byType.set(type, columns);
    }
    return columns;
  }

  /** Puts rows loaded some other way (a list page) where the id loader finds them. */
  prime(type: string, rows: readonly Row[]): void {
    const loader = this.byId(type);
    for (const row of rows) loader.prime(row.id, row);
  }
}

const allColumns = new Map<string, Column[]>();
/** RequestLoaders.columns per role (an Access, src/permissions: a role read again is another). */
const roleColumns = new WeakMap<Access, Map<string, Column[]>>();

/** The related type of a relationship, checked. */
export function targetOf(type: string, relationship: string): string {
  return definition(type).relationships[relationship]!.target;
}

/** DataLoader.loadMany, rejecting with the first failure instead of returning it in place. */
export async function loadAll<V>(loader: DataLoader<number, V>, keys: readonly number[]): Promise<V[]> {
  const values = await loader.loadMany(keys);
  const failed = values.find((v): v is Error => v instanceof Error);
  if (failed) throw failed;
  return values as V[];
}
