/**
 * A where (./where.ts) as SQL, the same on both providers: every condition is evaluated by the
 * database (relationships as EXISTS subqueries), never by filtering rows in JavaScript.
 *
 * Two-valued logic throughout: a condition on a missing value is false, and its NOT is true.
 * SQL would make both unknown (NULL), so that `NOT: { price: { gt: 5 } }` would leave out the
 * products without a price, which a reader of the filter would not expect. Negations are pushed
 * down to the comparisons, which then add `OR <column> IS NULL` where the column may be null.
 */
import { id, type Sql } from '../db/sql.ts';
import { SQLITE_LOWER } from '../db/sqlite-functions.ts';
import type { ScalarField, ToManyLink, ToOneLink } from './fields.ts';
import { isParsed, type Operand, onlyOnId, type WhereNode } from './where.ts';

const COMPARISON = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

/**
 * Appends the condition `node` sets on the rows aliased `alias` (`t` in `FROM products t`).
 * Subqueries name their rows after the depth they are at (`w1`, `w2`), so that the same where may
 * be appended twice to one statement (the page and its count).
 */
export function appendWhere(sql: Sql, node: WhereNode, alias: string): void {
  append(sql, node, alias, false, 1);
}

function append(sql: Sql, node: WhereNode, alias: string, negated: boolean, depth: number): void {
  if (isParsed(node)) sql.shaped = true;
  switch (node.kind) {
    case 'and':
    case 'or': {
      // NOT (a AND b) is (NOT a) OR (NOT b).
      const conjunction = (node.kind === 'and') !== negated;
      // What holds either way is left out (the `AND: []` of a list without conditions beside a cursor's `id > n`).
      const items = node.items.filter((item) => constantOf(item, negated) !== conjunction);
      if (items.length === 0) {
        sql.text(conjunction ? '1 = 1' : '1 = 0');
        return;
      }
      if (items.length === 1) {
        append(sql, items[0]!, alias, negated, depth);
        return;
      }
      sql.text('(');
      items.forEach((item, i) => {
        if (i > 0) sql.text(conjunction ? ' AND ' : ' OR ');
        append(sql, item, alias, negated, depth);
      });
      sql.text(')');
      return;
    }
    case 'not':
      append(sql, node.item, alias, !negated, depth);
      return;
    case 'compare':
      compare(sql, node, alias, negated);
      return;
    case 'empty':
      empty(sql, node.link, alias, negated, depth);
      return;
    case 'toOne': {
      if (node.link.via === 'column' && onlyOnId(node.where)) {
        onForeignKey(sql, node.link, node.where, alias, negated, depth);
        return;
      }
      const inner = `w${depth}`;
      sql.text(negated ? 'NOT EXISTS (' : 'EXISTS (');
      toOneRows(sql, node.link, alias, inner);
      sql.text(' AND ');
      append(sql, node.where, inner, false, depth + 1);
      sql.text(')');
      return;
    }
    case 'toMany': {
      // some: a related row matches; none: no related row matches; every: no related row fails.
      const exists = (node.quantifier === 'some') !== negated;
      const inner = `w${depth}`;
      sql.text(exists ? 'EXISTS (' : 'NOT EXISTS (');
      toManyRows(sql, node.link, alias, inner);
      sql.text(' AND ');
      append(sql, node.where, inner, node.quantifier === 'every', depth + 1);
      sql.text(')');
      return;
    }
  }
}

/** The where with its comparisons of the id made on `field` instead. */
function onField(node: WhereNode, field: ScalarField): WhereNode {
  if (node.kind === 'and' || node.kind === 'or') return { ...node, items: node.items.map((n) => onField(n, field)) };
  if (node.kind === 'not') return { kind: 'not', item: onField(node.item, field) };
  return node.kind === 'compare' ? { ...node, field } : node;
}

/**
 * A condition on the id of the row a foreign key points at, made on the foreign key: the same
 * rows as the EXISTS (the key always points at a row), without reading the other table. The key
 * must be set; the id is never missing.
 */
function onForeignKey(
  sql: Sql,
  link: Extract<ToOneLink, { via: 'column' }>,
  where: WhereNode,
  alias: string,
  negated: boolean,
  depth: number,
): void {
  const key: ScalarField = { kind: 'scalar', column: link.column, type: 'integer', nullable: false };
  const column = `${alias}.${id(link.column)}`;
  if (link.nullable) sql.text(negated ? `(${column} IS NULL OR ` : `(${column} IS NOT NULL AND `);
  append(sql, onField(where, key), alias, negated, depth);
  if (link.nullable) sql.text(')');
}

/** The truth of a node that holds for every row or none (an empty AND or OR), else undefined. */
function constantOf(node: WhereNode, negated: boolean): boolean | undefined {
  if ((node.kind !== 'and' && node.kind !== 'or') || node.items.length > 0) return undefined;
  return (node.kind === 'and') !== negated;
}

/** `SELECT 1 FROM <target> <inner> WHERE <inner is the row alias points at>` */
function toOneRows(sql: Sql, link: ToOneLink, alias: string, inner: string): void {
  sql.text(`SELECT 1 FROM ${id(link.target)} ${inner} WHERE `);
  if (link.via === 'column') sql.text(`${inner}."id" = ${alias}.${id(link.column)}`);
  else sql.text(`${inner}.${id(link.targetColumn)} = ${alias}."id"`);
}

/** `SELECT 1 FROM <targets> <inner> WHERE <inner is one of the rows alias reaches>` */
function toManyRows(sql: Sql, link: ToManyLink, alias: string, inner: string): void {
  if (link.via === 'children')
    sql.text(`SELECT 1 FROM ${id(link.target)} ${inner} WHERE ${inner}.${id(link.targetColumn)} = ${alias}."id"`);
  else
    sql.text(
      `SELECT 1 FROM ${id(link.joinTable)} ${inner}j JOIN ${id(link.target)} ${inner} ON ${inner}."id" = ${inner}j.${id(link.targetColumn)}` +
        ` WHERE ${inner}j.${id(link.ownColumn)} = ${alias}."id"`,
    );
}

function empty(sql: Sql, link: ToOneLink, alias: string, negated: boolean, depth: number): void {
  if (link.via === 'column') {
    sql.text(`${alias}.${id(link.column)} IS ${negated ? 'NOT ' : ''}NULL`);
    return;
  }
  sql.text(negated ? 'EXISTS (' : 'NOT EXISTS (');
  toOneRows(sql, link, alias, `w${depth}`);
  sql.text(')');
}

function compare(sql: Sql, node: Extract<WhereNode, { kind: 'compare' }>, alias: string, negated: boolean): void {
  const { field, op, value } = node;
  const column = `${alias}.${id(field.column)}`;
  if (op === 'isNull') {
    sql.text(`${column} IS ${negated ? 'NOT ' : ''}NULL`);
    return;
  }
  // The comparison is unknown (NULL) on a missing value: false, and true when negated.
  if (negated) sql.text(field.nullable ? `(${column} IS NULL OR NOT ` : 'NOT ');
  sql.text('(');
  positive(sql, op, column, value, field.type === 'decimal');
  sql.text(')');
  if (negated && field.nullable) sql.text(')');
}

function positive(sql: Sql, op: string, column: string, value: Operand | Operand[], decimal: boolean): void {
  const param = (v: Operand) => (decimal && sql.provider === 'sqlite' ? Number(v) : v);
  switch (op) {
    case 'equals':
      sql.text(`${column} = `).value(param(value as Operand));
      return;
    case 'in': {
      const values = (value as Operand[]).map(param);
      if (values.length === 0) sql.text('1 = 0');
      else sql.text(column).in(values);
      return;
    }
    case 'lt':
    case 'lte':
    case 'gt':
    case 'gte':
      sql.text(`${column} ${COMPARISON[op]} `).value(param(value as Operand));
      return;
    default:
      text(sql, op, column, value as string);
  }
}

/**
 * contains, startsWith, endsWith of a lowercased needle. PostgreSQL: ILIKE (case-insensitive by
 * the database's UTF-8 ctype), its wildcards escaped, which the planner estimates from the
 * column's statistics (it guesses an expression such as strpos(lower(..)) at a third of the
 * rows, and then chose hash joins over whole tables for the rest of W6's statement). SQLite: the
 * Unicode lowercase of the column (its own LIKE folds ASCII only), compared in code points.
 */
function text(sql: Sql, op: string, column: string, needle: string): void {
  if (needle === '') {
    sql.text(`${column} IS NOT NULL`);
    return;
  }
  if (sql.provider === 'postgresql') {
    const escaped = needle.replace(/[\\%_]/g, '\\$&');
    const pattern = op === 'contains' ? `%${escaped}%` : op === 'startsWith' ? `${escaped}%` : `%${escaped}`;
    sql.text(`${column} ILIKE `).value(pattern);
    return;
  }
  const lower = `${SQLITE_LOWER}(${column})`;
  const length = [...needle].length;
  if (op === 'contains') sql.text(`instr(${lower}, `).value(needle).text(') > 0');
  else if (op === 'startsWith') sql.text(`substr(${lower}, 1, `).value(length).text(') = ').value(needle);
  else sql.text(`substr(${lower}, -`).value(length).text(') = ').value(needle);
}
