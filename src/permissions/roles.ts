/**
 * Roles: what each consuming system may see and change (docs/guides/connecting-a-system-with-a-role.md,
 * docs/reference/roles.md). A role names, per resource type and operation, the fields it may see or set and the
 * rows it applies to, in the filter language of src/query with the spec's names. Deny by default:
 * what a role does not name, it may not do. `admin` is built in and may do everything.
 *
 * This module reads and checks role files; it knows the resource descriptions and the filter
 * language only, so the data layer can consult it without it ever importing the data layer.
 */
import { ownRowOnly, parseWhere, type WhereNode, WhereInputError } from '../query/where.ts';
import { resourceByType, resources } from '../resources/registry.ts';
import type { ResourceDefinition } from '../resources/types.ts';

export const ROLE_OPERATIONS = ['read', 'create', 'update', 'delete', 'approve'] as const;
export type RoleOperation = (typeof ROLE_OPERATIONS)[number];

/** What one operation on one type may do. */
export interface Rule {
  /** The attributes and relationships it may see or set (spec names); undefined: all of them. */
  fields?: ReadonlySet<string>;
  /** The rows it applies to; undefined: all. On the row's own fields and to-one ids only. */
  where?: WhereNode;
  /** create and update: what the row must meet after the write, or nothing is written. */
  check?: WhereNode;
  /**
   * create, update and delete: its writes wait as change requests until another client approves
   * them (src/change-requests); the role makes none of them itself.
   */
  approval?: 'required';
}

export interface Role {
  name: string;
  /** The rules as the role file gave them (what is stored and shown). */
  source?: unknown;
  /** By type, then operation; a type or operation not here is not allowed. Undefined: everything (admin). */
  rules?: ReadonlyMap<string, ReadonlyMap<RoleOperation, Rule>>;
}

export const ADMIN = 'admin';
export const ADMIN_ROLE: Role = { name: ADMIN };

/** A role name: what `npm run client -- create --role` and role files accept. */
export const ROLE_NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** A role file that cannot be applied: every problem, each with its path in the file. */
export class RoleFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`the role file is refused, nothing was applied:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

/** Types whose rows a write removes (structure items, by REL-REMOVE or REL-REPLACE): the only ones `delete` applies to. */
const DELETABLE = new Set(
  resources.flatMap((r) =>
    Object.values(r.relationships).flatMap((rel) => (rel.storage.kind === 'children' ? [rel.target] : [])),
  ),
);

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The roles a role file defines (`{ "roles": { "<name>": { "<type>": { "<operation>": { fields,
 * where, check } } } } }`), or RoleFileError listing every problem found, each by its path.
 */
export function parseRoleFile(input: unknown): Role[] {
  const problems: string[] = [];
  if (!isObject(input) || !isObject(input.roles) || Object.keys(input).some((k) => k !== 'roles'))
    throw new RoleFileError(['(the file) must be a JSON object with one key, "roles": an object of roles by name']);
  const roles: Role[] = [];
  for (const [name, types] of Object.entries(input.roles)) {
    const path = `roles.${name}`;
    if (name === ADMIN) problems.push(`${path}: admin is built in and cannot be defined`);
    else if (!ROLE_NAME.test(name))
      problems.push(`${path}: a role's name is lowercase letters, digits and _, starting with a letter (at most 63)`);
    if (!isObject(types)) {
      problems.push(`${path}: must be an object of resource types`);
      continue;
    }
    const rules = new Map<string, Map<RoleOperation, Rule>>();
    for (const [type, operations] of Object.entries(types)) {
      const resource = resourceByType(type);
      if (!resource) {
        problems.push(`${path}.${type}: is not a resource type`);
        continue;
      }
      const byOperation = readOperations(resource, operations, `${path}.${type}`, problems);
      if (byOperation) rules.set(type, byOperation);
    }
    roles.push({ name, rules, source: types });
  }
  if (problems.length > 0) throw new RoleFileError(problems);
  return roles;
}

function readOperations(
  resource: ResourceDefinition,
  operations: unknown,
  path: string,
  problems: string[],
): Map<RoleOperation, Rule> | undefined {
  if (!isObject(operations)) {
    problems.push(`${path}: must be an object of operations (${ROLE_OPERATIONS.join(', ')})`);
    return undefined;
  }
  const rules = new Map<RoleOperation, Rule>();
  for (const [operation, rule] of Object.entries(operations)) {
    const at = `${path}.${operation}`;
    if (!ROLE_OPERATIONS.includes(operation as RoleOperation)) {
      problems.push(`${at}: is not an operation: ${ROLE_OPERATIONS.join(', ')}`);
      continue;
    }
    if (operation === 'delete' && !DELETABLE.has(resource.type)) {
      problems.push(`${at}: ${resource.type} are never deleted (delete applies to: ${[...DELETABLE].join(', ')})`);
      continue;
    }
    const read = readRule(resource, operation as RoleOperation, rule, at, problems);
    if (read) rules.set(operation as RoleOperation, read);
  }
  return rules;
}

/** The keys a rule of `operation` takes. */
function ruleKeys(operation: RoleOperation): string[] {
  if (operation === 'approve') return ['where'];
  if (operation === 'read') return ['fields', 'where'];
  return ['fields', 'where', ...(operation === 'delete' ? [] : ['check']), 'approval'];
}

function readRule(
  resource: ResourceDefinition,
  operation: RoleOperation,
  input: unknown,
  path: string,
  problems: string[],
): Rule | undefined {
  const keys = ruleKeys(operation);
  if (!isObject(input)) {
    problems.push(`${path}: must be an object (with ${keys.join(', ')}; {} allows everything)`);
    return undefined;
  }
  const rule: Rule = {};
  for (const [key, value] of Object.entries(input)) {
    const at = `${path}.${key}`;
    if (!keys.includes(key)) problems.push(`${at}: is not a key of a rule of ${operation}: ${keys.join(', ')}`);
    else if (key === 'fields') rule.fields = readFields(resource, value, at, problems);
    else if (key === 'approval') {
      if (value === 'required') rule.approval = 'required';
      else problems.push(`${at}: must be "required" (leave it out for writes that need no approval)`);
    } else
      rule[key as 'where' | 'check'] = readCondition(
        resource,
        value,
        at,
        problems,
        operation === 'read' && key === 'where',
      );
  }
  return rule;
}

function readFields(resource: ResourceDefinition, value: unknown, path: string, problems: string[]) {
  if (!Array.isArray(value)) {
    problems.push(`${path}: must be a list of attribute and relationship names`);
    return undefined;
  }
  const fields = new Set<string>();
  value.forEach((name, i) => {
    if (typeof name !== 'string' || !(name in resource.attributes || name in resource.relationships))
      problems.push(`${path}[${i}]: ${JSON.stringify(name)} is not an attribute or relationship of ${resource.type}`);
    else fields.add(name);
  });
  return fields;
}

/**
 * What a condition names that the change log does not carry in its entries: the server's dates
 * (`modified_date`, left out of an update's values) and the owner a row belongs to (a structure's
 * product, an item's structure: not a field of its document). By their names.
 */
function unfollowedColumns(resource: ResourceDefinition, node: WhereNode): string[] {
  const server = new Map(
    Object.entries(resource.attributes).flatMap(([name, a]) => (a.write === 'server' ? [[a.column, name]] : [])),
  );
  const owners = new Map(Object.entries(resource.ownerLinks ?? {}).map(([name, link]) => [link.column, name]));
  const found = new Set<string>();
  const walk = (n: WhereNode): void => {
    if (n.kind === 'and' || n.kind === 'or') n.items.forEach(walk);
    else if (n.kind === 'not') walk(n.item);
    else if (n.kind === 'compare' && server.has(n.field.column)) found.add(server.get(n.field.column)!);
    else if ((n.kind === 'toOne' || n.kind === 'empty') && n.link.via === 'column' && owners.has(n.link.column))
      found.add(owners.get(n.link.column)!);
  };
  walk(node);
  return [...found];
}

/** A where or check; `followed`: the rows a role reads, which the change log must be able to follow. */
function readCondition(
  resource: ResourceDefinition,
  value: unknown,
  path: string,
  problems: string[],
  followed: boolean,
) {
  try {
    const where = parseWhere(resource.type, value, path, 'spec');
    if (!ownRowOnly(where)) {
      problems.push(
        `${path}: may name the row's own fields and its to-one relationships' ids only (a row's visibility must change only when the row itself is written)`,
      );
      return undefined;
    }
    const unfollowed = followed ? unfollowedColumns(resource, where) : [];
    if (unfollowed.length > 0) {
      problems.push(
        `${path}: may not name ${unfollowed.join(', ')}: the change log does not record it with every change, so a consumer following the log could not be told when a row enters or leaves the role's rows`,
      );
      return undefined;
    }
    return where;
  } catch (error) {
    if (error instanceof WhereInputError) {
      problems.push(`${error.path}: ${error.reason}`);
      return undefined;
    }
    throw error;
  }
}

/**
 * What a role file names that its role will never use: a relationship in a rule's `fields` whose
 * target type the role may not read (reads leave it out, as they leave out a row the role cannot
 * see). Said by path, so that `roles apply` does not drop it silently. An attribute of the same
 * name (a supplier's currency) still counts.
 */
export function unusedRelationships(roles: readonly Role[]): string[] {
  const found: string[] = [];
  for (const role of roles) {
    const source = role.source as Record<string, Record<string, { fields?: unknown }>>;
    for (const [type, operations] of role.rules ?? []) {
      const resource = resourceByType(type)!;
      for (const operation of operations.keys()) {
        const listed = source[type]?.[operation]?.fields;
        if (!Array.isArray(listed)) continue;
        listed.forEach((name: unknown, i) => {
          if (typeof name !== 'string' || name in resource.attributes) return;
          const target = resource.relationships[name]?.target;
          if (target && !role.rules!.get(target)?.has('read'))
            found.push(
              `roles.${role.name}.${type}.${operation}.fields[${i}]: ${name} leads to ${target}, which ${role.name} may not read, so it is left out; give ${role.name} "${target}": {"read": {}} or leave ${name} out`,
            );
        });
      }
    }
  }
  return found;
}
