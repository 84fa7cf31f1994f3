/**
 * Operations graphql-jit must not compile: those with a variable of a recursive input type.
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

/**
 * Whether an operation declares a variable of an input type that contains itself (`ProductWhere`
 * holds `AND: [ProductWhere!]` and, through relationships, the where of every type). graphql-jit
 * writes the code that checks a variable by unrolling its type, and unrolls a recursive one to a
 * depth that took 5 to 30 s of CPU to compile (measured, one where variable); graphql-js checks it
 * by walking the value instead.
 */
export function takesRecursiveInput(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  return (operation.variableDefinitions ?? []).some((v) => {
    const type = schema.getType(namedTypeOf(v.type));
    return type !== undefined && isInputObjectType(type) && recursiveInputs(schema).has(type.name);
  });
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
