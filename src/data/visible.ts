/**
 * The rows a read may return: those of the reader's role (src/permissions), and those its own
 * where asks for. Every read of the data layer that returns rows of a type passes here, so that a
 * role's row filter is part of the same one statement as the read, and the role's rows on the
 * other side of a relationship bound what a client's where can find there.
 */
import type { Access } from '../permissions/access.ts';
import type { DataSource as Reads, Statement } from '../db/reads.ts';
import type { Sql } from '../db/sql.ts';
import { appendWhere } from '../query/compile.ts';
import type { WhereNode } from '../query/where.ts';

/** Where the data layer reads from, and for whom: no Access for admin, which may see everything. */
export interface DataSource extends Reads {
  readonly access?: Access;
}

/** The same reads, for a client with the role `access` (none: admin). */
export function readingAs(source: Reads, access: Access | undefined): DataSource {
  if (!access) return source;
  return {
    provider: source.provider,
    asOf: source.asOf,
    query: <T>(statement: Statement) => source.query<T>(statement),
    access,
  };
}

/** The rows of `type` a read through `db` may return that `where` (a client's, or none) matches; undefined: all. */
export function visible(db: DataSource, type: string, where?: WhereNode): WhereNode | undefined {
  const access = db.access;
  if (!access) return where;
  const filter = access.rowFilter(type);
  const scoped = where && access.scope(where);
  if (!filter) return scoped;
  return scoped ? { kind: 'and', items: [filter, scoped] } : filter;
}

/** Appends ` AND <condition>` on the rows of `type` aliased `alias` that `db` may read and `where` matches, if any. */
export function andVisible(sql: Sql, db: DataSource, type: string, where: WhereNode | undefined, alias = 't'): void {
  const condition = visible(db, type, where);
  if (!condition) return;
  sql.text(' AND ');
  appendWhere(sql, condition, alias);
}
