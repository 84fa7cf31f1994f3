/**
 * Lists given in an operation's arguments, literally or by a variable, longer than the limit
 * (./limits.ts GRAPHQL_LIMITS.listItems; a bulk mutation's rows have their own, ListRows): the
 * first one found, as an error naming where it is.
 */
import { type DocumentNode, type GraphQLError, Kind, type ValueNode } from 'graphql';
import { badInput } from './errors.ts';
import { fieldOfPath, variablePath, variableUses } from './input-problems.ts';

/** The rows a bulk mutation's list argument takes instead of listItems (`extensions.listRows` of its field), not its rows' lists. */
export type ListRows = Record<string, number>;

/** The literal lists under an argument longer than `limit` (its own list) or `nested` (the lists in it): the first, as an error. */
export function longLiteral(node: ValueNode, path: string, limit: number, nested: number): GraphQLError | undefined {
  if (node.kind === Kind.LIST) {
    if (node.values.length > limit)
      return badInput(`${path} holds ${node.values.length} items: a list takes at most ${limit}`, fieldOfPath(path), [
        node,
      ]);
    for (const [i, item] of node.values.entries()) {
      const found = longLiteral(item, `${path}[${i}]`, nested, nested);
      if (found) return found;
    }
  } else if (node.kind === Kind.OBJECT) {
    for (const field of node.fields) {
      const found = longLiteral(field.value, `${path}.${field.name.value}`, nested, nested);
      if (found) return found;
    }
  }
  return undefined;
}

/** The variables' lists longer than the limit: the first, as an error naming where it lands. */
export function longVariable(
  document: DocumentNode,
  variables: Record<string, unknown>,
  rowVariables: ReadonlyMap<string, number>,
  listItems: number,
): GraphQLError | undefined {
  const pending: [unknown, string, number][] = Object.entries(variables).map(([name, v]) => [
    v,
    `$${name}`,
    rowVariables.get(name) ?? listItems,
  ]);
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path, limit] = next;
    if (Array.isArray(value)) {
      if (value.length > limit) {
        const { said, field } = variablePath(path, variableUses(document));
        return badInput(`${said} holds ${value.length} items: a list takes at most ${limit}`, field);
      }
      for (const [i, item] of value.entries()) pending.push([item, `${path}[${i}]`, listItems]);
    } else if (value && typeof value === 'object')
      for (const [key, item] of Object.entries(value)) pending.push([item, `${path}.${key}`, listItems]);
  }
  return undefined;
}
