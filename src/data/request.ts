/**
 * Per-request DataLoaders over the batch loads (./load.ts), for surfaces that need whole
 * resources rather than a selection: the REST layer's documents and `include`. Every load of a
 * type made while a request is answered at one level is one statement, whatever the number of
 * resources, and reads the resources with the ids of all their relationships. (GraphQL wraps the
 * same batch loads in Pothos's loaders, with only the selected columns.)
 */
import DataLoader from 'dataloader';
import {
  allFields,
  columnsOf,
  definition,
  idsKey,
  relationshipIdColumns,
  relationshipIds,
  type Column,
} from './columns.ts';
import { rowsByIds, type DataSource, type Row } from './load.ts';
import { tracedBatch } from '../observability/tracing.ts';

/** DataLoaders by key, each made on first use: one request's batching and caching. */
export class LoaderMap {
  private readonly loaders = new Map<string, DataLoader<number, unknown>>();

  get<V>(key: string, batch: (keys: readonly number[]) => Promise<V[]>): DataLoader<number, V> {
    let loader = this.loaders.get(key);
    if (!loader)
      this.loaders.set(
        key,
        (loader = new DataLoader<number, V>(tracedBatch(key, batch)) as DataLoader<number, unknown>),
      );
    return loader as DataLoader<number, V>;
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
    return this.loaders.get(`id:${type}`, async (ids) =>
      this.visible(type, await rowsByIds(this.source, type, ids, RequestLoaders.columns(type))),
    );
  }

  /**
   * Rows of `type` as the reader's role sees their relationships: without the related resources it
   * may not see (a to-one is null, a to-many leaves them out). The same rows when nothing is hidden
   * (admin, or no related type with a row filter); otherwise one statement per related type.
   */
  async visible<R extends Row | null>(type: string, rows: R[]): Promise<R[]> {
    const access = this.source.access;
    if (!access?.dependsOnOthers(type)) return rows;
    const shaped = rows.map((row) => (row ? { ...row } : row)) as R[];
    for (const [name, rel] of Object.entries(definition(type).relationships)) {
      if (!access.sees(type, name) || !access.rowFilter(rel.target)) continue;
      const storage = rel.storage;
      const idsOf = (row: Row) => {
        const ids = storage.kind === 'foreignKey' ? row[storage.column] : relationshipIds(row, name);
        return (Array.isArray(ids) ? ids : ids == null ? [] : [ids]) as number[];
      };
      const present = shaped.flatMap((row) => (row ? idsOf(row) : []));
      if (present.length === 0) continue;
      const seen = new Set(
        await loadAll(this.visibleIds(rel.target), [...new Set(present)]).then((ids) =>
          ids.filter((id) => id !== null),
        ),
      );
      for (const row of shaped) {
        if (!row) continue;
        if (storage.kind === 'foreignKey') {
          if (row[storage.column] != null && !seen.has(row[storage.column] as number))
            (row as Row)[storage.column] = null;
          continue;
        }
        const ids = relationshipIds(row, name);
        (row as Row)[idsKey(name)] = Array.isArray(ids)
          ? ids.filter((id) => seen.has(id))
          : ids !== null && seen.has(ids)
            ? ids
            : null;
      }
    }
    return shaped;
  }

  /** The ids of `type` the reader may see, null for the others: only ids are read, so no row's relationships are followed. */
  private visibleIds(type: string): DataLoader<number, number | null> {
    return this.loaders.get(`visible:${type}`, async (ids) =>
      (await rowsByIds(this.source, type, ids, ID_ONLY)).map((row) => row?.id ?? null),
    );
  }

  /** Puts rows loaded some other way (a list page) where the id loader finds them. */
  prime(type: string, rows: readonly Row[]): void {
    const loader = this.byId(type);
    for (const row of rows) loader.prime(row.id, row);
  }
}

const allColumns = new Map<string, Column[]>();
const ID_ONLY: Column[] = [{ name: 'id', type: 'integer' }];

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
