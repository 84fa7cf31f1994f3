/**
 * Parsing and validation of a GraphQL document, as the pipeline (./pipeline.ts) does them once per
 * text and role's schema: the token limit while parsing; graphql-js's rules with the project's
 * limits as rules beside them (depth, directives and aliases here and in ./limits.ts); and, when
 * introspection is off, no introspection and no "did you mean" that would hand the schema out
 * piece by piece. Each error gets its code from the rule that reported it, and its words from
 * what that rule looked at (the node, the types where it stood), never from rewording
 * graphql-js's English.
 */
import {
  FieldsOnCorrectTypeRule,
  GraphQLError,
  Kind,
  KnownArgumentNamesRule,
  KnownTypeNamesRule,
  NoSchemaIntrospectionCustomRule,
  specifiedRules,
  validate,
  ValuesOfCorrectTypeRule,
  visit,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isNonNullType,
  type ASTNode,
  type ASTVisitor,
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { Parser } from 'graphql/language/parser.js';
import { KnownArgumentNamesOnDirectivesRule } from 'graphql/validation/rules/KnownArgumentNamesRule.js';
import { badInput } from './errors.ts';
import { withInputProblems } from './input-problems.ts';
import { depthRule, directivesRule, GRAPHQL_LIMITS } from './limits.ts';

/** The code of a document refused by validation (and of one over the token limit). */
export const VALIDATION_FAILED = 'GRAPHQL_VALIDATION_FAILED';
/** The code of a document that does not parse. */
export const PARSE_FAILED = 'GRAPHQL_PARSE_FAILED';

/**
 * A query text's document, or the error that refuses it: a syntax error, or more lexical tokens
 * than GRAPHQL_LIMITS.tokens (counted by the parser as it reads, as it reads them: what is
 * beyond a syntax error is not counted).
 */
export function parseDocument(text: string): DocumentNode | GraphQLError {
  const parser = new Parser(text, { maxTokens: GRAPHQL_LIMITS.tokens });
  try {
    return parser.parseDocument();
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    if (parser.tokenCount > GRAPHQL_LIMITS.tokens)
      return new GraphQLError(`Token limit of ${GRAPHQL_LIMITS.tokens} exceeded.`, {
        extensions: { code: VALIDATION_FAILED },
      });
    return withCode(error, PARSE_FAILED);
  }
}

// Aliases ----------------------------------------------------------------------------------------

/**
 * The alias limit: aliased fields per operation, `__typename` too, a fragment's counted each time
 * it is spread (once worked out per document).
 */
function aliasesRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, number>();
  const count = (node: ASTNode): number => {
    let aliases = node.kind === Kind.FIELD && node.alias ? 1 : 0;
    if ('selectionSet' in node && node.selectionSet)
      for (const child of node.selectionSet.selections) aliases += count(child);
    else if (node.kind === Kind.FRAGMENT_SPREAD) {
      const name = node.name.value;
      const known = fragments.get(name);
      // Being counted (a cycle, refused by validation anyway): nothing more.
      if (known !== undefined) return aliases + Math.max(known, 0);
      fragments.set(name, -1);
      const fragment = context.getFragment(name);
      const inner = fragment ? count(fragment) : 0;
      fragments.set(name, inner);
      aliases += inner;
    }
    return aliases;
  };
  return {
    OperationDefinition(operation) {
      const aliases = count(operation);
      if (aliases > GRAPHQL_LIMITS.aliases)
        context.reportError(
          new GraphQLError(`Aliases limit of ${GRAPHQL_LIMITS.aliases} exceeded, found ${aliases}.`, {
            nodes: operation,
          }),
        );
    },
  };
}

/**
 * An operation whose type the schema has no root for (mutations, for a role that may not write)
 * is a validation error, as graphql-js 17 makes it; graphql-js 16 lets it through to execution.
 */
function knownOperationTypesRule(context: ValidationContext): ASTVisitor {
  return {
    OperationDefinition(node) {
      if (!context.getSchema().getRootType(node.operation))
        context.reportError(
          new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }),
        );
    },
  };
}

// Without suggestions ----------------------------------------------------------------------------

/** FieldsOnCorrectTypeRule without suggestions. */
function fieldsOnCorrectTypeRule(context: ValidationContext): ASTVisitor {
  return {
    Field(node) {
      const type = context.getParentType();
      if (type && !context.getFieldDef())
        context.reportError(
          new GraphQLError(`Cannot query field "${node.name.value}" on type "${type.name}".`, { nodes: node }),
        );
    },
  };
}

/** KnownArgumentNamesRule without suggestions. */
function knownArgumentNamesRule(context: ValidationContext): ASTVisitor {
  return {
    ...KnownArgumentNamesOnDirectivesRule(context),
    Argument(node) {
      const field = context.getFieldDef();
      const parent = context.getParentType();
      if (!context.getArgument() && field && parent)
        context.reportError(
          new GraphQLError(`Unknown argument "${node.name.value}" on field "${parent.name}.${field.name}".`, {
            nodes: node,
          }),
        );
    },
  };
}

/** KnownTypeNamesRule without suggestions (executable documents: type definitions are refused apart). */
function knownTypeNamesRule(context: ValidationContext): ASTVisitor {
  return {
    NamedType(node) {
      if (!context.getSchema().getType(node.name.value))
        context.reportError(new GraphQLError(`Unknown type "${node.name.value}".`, { nodes: node }));
    },
  };
}

const WITHOUT_SUGGESTIONS = new Map<ValidationRule, ValidationRule>([
  [FieldsOnCorrectTypeRule, fieldsOnCorrectTypeRule],
  [KnownArgumentNamesRule, knownArgumentNamesRule],
  [KnownTypeNamesRule, knownTypeNamesRule],
]);

// What each rule reported ------------------------------------------------------------------------

/** Where a rule stood when it reported an error: its rule, and the input types there (values). */
interface Report {
  rule: ValidationRule;
  inputType: GraphQLInputType | undefined;
  parentInputType: GraphQLInputType | undefined;
}

/** A rule whose errors are remembered with where it stood (`reports`). */
function reporting(rule: ValidationRule, reports: Map<GraphQLError, Report>): ValidationRule {
  return (context) =>
    rule(
      Object.create(context, {
        reportError: {
          value: (error: GraphQLError) => {
            reports.set(error, {
              rule,
              inputType: context.getInputType() ?? undefined,
              parentInputType: context.getParentInputType() ?? undefined,
            });
            context.reportError(error);
          },
        },
      }) as ValidationContext,
    );
}

/** The rules a pipeline validates with. */
export function validationRules(introspection: boolean): ValidationRule[] {
  const own = [depthRule, directivesRule, aliasesRule, knownOperationTypesRule];
  if (introspection) return [...specifiedRules, ...own];
  return [
    ...specifiedRules.map((rule) => WITHOUT_SUGGESTIONS.get(rule) ?? rule),
    ...own,
    NoSchemaIntrospectionCustomRule,
  ];
}

/** graphql-js gives up comparing fields of one name past a budget (it throws rather than reports). */
const VALIDATION_ABORTED =
  'the document repeats fields of the same name more often than validation compares (some hundreds in one selection): select each field once';

/**
 * Validation's errors with codes (none when the document is valid against the schema): values
 * written in the query as BAD_USER_INPUT naming the field, the rest GRAPHQL_VALIDATION_FAILED.
 */
export function validateDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules: readonly ValidationRule[],
  introspection: boolean,
): GraphQLError[] {
  const reports = new Map<GraphQLError, Report>();
  let errors: readonly GraphQLError[];
  try {
    errors = validate(
      schema,
      document,
      rules.map((rule) => reporting(rule, reports)),
    );
  } catch (error) {
    // Thrown, not reported: the only rule that throws gave up.
    if (!(error instanceof GraphQLError)) throw error;
    return [new GraphQLError(VALIDATION_ABORTED, { extensions: { code: VALIDATION_FAILED } })];
  }
  if (errors.length === 0) return [];
  const inputs = withInputProblems(schema, document, errors, !introspection);
  return errors.map((error, i) => {
    const report = reports.get(error);
    if (inputs[i]) return inputs[i]!;
    if (report?.rule === ValuesOfCorrectTypeRule) return valueError(error, report, document, introspection);
    return withCode(error, VALIDATION_FAILED);
  });
}

/**
 * A value written in the query that does not fit its type, as BAD_USER_INPUT naming the field:
 * the input field missing from an object, or the argument or input field the value is given for.
 */
function valueError(error: GraphQLError, report: Report, document: DocumentNode, introspection: boolean): GraphQLError {
  const node = error.nodes?.[0];
  const type = report.inputType && getNamedType(report.inputType);
  let field: string | undefined;
  if (node?.kind === Kind.OBJECT && type && isInputObjectType(type)) {
    const given = new Set(node.fields.map((f) => f.name.value));
    field = Object.values(type.getFields()).find(
      (f) => isNonNullType(f.type) && f.defaultValue === undefined && !given.has(f.name),
    )?.name;
  } else if (node) {
    visit(document, {
      ObjectField: (at) => void (at.value === node && (field = at.name.value)),
      Argument: (at) => void (at.value === node && (field = at.name.value)),
    });
  }
  return badInput(introspection ? error.message : hiddenValueMessage(error, report), field, error.nodes);
}

/** What is wrong with a value, without naming what else the schema holds. */
function hiddenValueMessage(error: GraphQLError, report: Report): string {
  const node = error.nodes?.[0];
  const type = report.inputType && getNamedType(report.inputType);
  const parent = report.parentInputType && getNamedType(report.parentInputType);
  if (node?.kind === Kind.ENUM && type && isEnumType(type))
    return `Value "${node.value}" does not exist in "${type.name}" enum.`;
  if (node?.kind === Kind.OBJECT_FIELD && parent)
    return `Field "${node.name.value}" is not defined by type "${parent.name}".`;
  return error.message;
}

/** An error with a code (one it carries already is kept). */
export function withCode(error: GraphQLError, code: string): GraphQLError {
  if (error.extensions?.code) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code },
  });
}
