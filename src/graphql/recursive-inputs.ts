/**
 * Variables of recursive input types (`ProductWhere`): graphql-jit must not compile the
 * operations that take them, and graphql-js, which checks them by walking their values, must not
 * be handed large ones.
 */
import {
  getNamedType,
  isInputObjectType,
  Kind,
  type GraphQLInputObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type TypeNode,
} from 'graphql';
import { WHERE_LIMITS } from '../query/where.ts';

/** A variable of a recursive input type: its name and the type's. */
export interface RecursiveVariable {
  name: string;
  type: string;
}

/**
 * The variables an operation declares of an input type that contains itself (`ProductWhere`
 * holds `AND: [ProductWhere!]` and, through relationships, the where of every type). graphql-jit
 * writes the code that checks a variable by unrolling its type, and unrolls a recursive one to a
 * depth that took 5 to 30 s of CPU to compile (measured, one where variable): an operation with
 * one is run by graphql-js, which checks it by walking the value instead (./prepared.ts).
 */
export function recursiveVariables(schema: GraphQLSchema, operation: OperationDefinitionNode): RecursiveVariable[] {
  return (operation.variableDefinitions ?? []).flatMap((v) => {
    const type = schema.getType(namedTypeOf(v.type));
    return type !== undefined && isInputObjectType(type) && recursiveInputs(schema).has(type.name)
      ? [{ name: v.variable.name.value, type: type.name }]
      : [];
  });
}

/**
 * Objects a variable of a recursive input type may hold: what a where of WHERE_LIMITS.conditions
 * needs, with room. graphql-js checks a variable by walking it, input type by input type, before
 * anything of ours can refuse it: 216,000 empty objects in 684 KB took 3.8 s. (Long lists of
 * scalars cost it little; the limit on list items refuses them after, naming their path.)
 */
export const MAX_RECURSIVE_VARIABLE_OBJECTS = 2000;

/** Why one of an operation's variables of recursive input types (recursiveVariables) is too large to check, or undefined. */
export function oversizedRecursiveVariable(
  recursive: readonly RecursiveVariable[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  for (const { name, type } of recursive) {
    let objects = 0;
    const pending: unknown[] = name in (variables ?? {}) ? [variables![name]] : [];
    while (pending.length > 0) {
      const next = pending.pop();
      if (Array.isArray(next)) pending.push(...next);
      else if (next !== null && typeof next === 'object') {
        if (++objects > MAX_RECURSIVE_VARIABLE_OBJECTS)
          return `variable $${name} holds more than ${MAX_RECURSIVE_VARIABLE_OBJECTS} objects (a ${type} takes at most ${WHERE_LIMITS.conditions} conditions)`;
        pending.push(...Object.values(next));
      }
    }
  }
  return undefined;
}

function namedTypeOf(node: TypeNode): string {
  return node.kind === Kind.NAMED_TYPE ? node.name.value : namedTypeOf(node.type);
}

const recursive = new WeakMap<GraphQLSchema, Set<string>>();

/** The input object types of a schema from which a cycle of input types can be reached. */
function recursiveInputs(schema: GraphQLSchema): Set<string> {
  let found = recursive.get(schema);
  if (found) return found;
  found = new Set();
  const inputs = Object.values(schema.getTypeMap()).filter(isInputObjectType);
  const fieldTypes = (type: GraphQLInputObjectType) =>
    Object.values(type.getFields())
      .map((f) => getNamedType(f.type))
      .filter(isInputObjectType);
  for (const start of inputs) {
    // A depth-first walk from `start`: it is recursive when the walk comes back to a type on its path.
    const onPath = new Set<string>();
    const done = new Set<string>();
    const walk = (type: GraphQLInputObjectType): boolean => {
      if (onPath.has(type.name) || found!.has(type.name)) return true;
      if (done.has(type.name)) return false;
      onPath.add(type.name);
      const cyclic = fieldTypes(type).some(walk);
      onPath.delete(type.name);
      done.add(type.name);
      return cyclic;
    };
    if (walk(start)) found.add(start.name);
  }
  recursive.set(schema, found);
  return found;
}
