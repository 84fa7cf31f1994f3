/**
 * Bulk mutations, generated from the registry for every type the single ones exist for:
 * `create<Types>(inputs)`, `update<Types>(updates: [{id, expectedVersion, input}])` and, where
 * the type has a business key (`reference`, `username`, the ISO codes), `upsert<Types>(inputs)`.
 * Each is one transaction in the data layer (src/data/bulk-writes.ts): one bad row and nothing
 * is written, and every bad row is named, one error each (`inputs[17].unitId`: ./errors.ts).
 * Answers list the rows in input order.
 */
import { builder } from './builder.ts';
import { businessKey, MAX_BULK_ROWS, type UpsertOutcome } from '../data/bulk-writes.ts';
import { MAX_LISTED_ERRORS } from '../data/error-list.ts';
import { resources } from '../resources/registry.ts';
import { attributeField, pascal, typeName } from '../resources/names.ts';
import {
  conditions,
  expectedVersionDescription,
  resourceInputs,
  toWriteInput,
  write,
  writer,
  written,
} from './mutations.ts';
import { refOf } from './objects.ts';
import { forgetLoaded } from './request-loaders.ts';
import type { GraphQLContext } from './context.ts';
import type { WriteInput } from '../data/writes.ts';
import type { ListRows } from './list-limits.ts';

const UpsertOutcomeEnum = builder.enumType('UpsertOutcome', {
  description: 'What an upsert did with a row.',
  values: {
    CREATED: { value: 'created', description: 'No row had its key: it was created.' },
    UPDATED: { value: 'updated', description: 'The row with its key was changed (a new version, a log entry).' },
    UNCHANGED: {
      value: 'unchanged',
      description: 'The row with its key already held these values: nothing written, no new version.',
    },
  } as const,
});

/** A bulk write's cost: like one field per row, and the selection once per row. */
const perRow = (rows: unknown) => {
  const count = Array.isArray(rows) ? rows.length : 1;
  return { field: count, multiplier: count };
};

/** A bulk write of `inputs` (GraphQL values of `inputName`); what the operation reads next is read anew. */
async function bulkWrite<T>(
  type: string,
  inputName: string,
  inputs: readonly unknown[],
  context: GraphQLContext,
  run: (rows: WriteInput[]) => Promise<T>,
): Promise<T> {
  return write(type, async () => {
    const result = await run(inputs.map((v, i) => toWriteInput(inputName, v as never, `inputs[${i}]`)));
    forgetLoaded(context);
    return result;
  });
}

const ALL_OR_NOTHING = `One transaction: when rows are refused, nothing is written, and each refused row is named by an error of its own (its field in \`extensions.field\`), at most ${MAX_LISTED_ERRORS}, then one ERRORS_OMITTED error with the count left out (\`extensions.omitted\`). At most ${MAX_BULK_ROWS} rows.`;

for (const resource of resources) {
  const inputs = resourceInputs.get(resource.type);
  if (!inputs) continue;
  const type = resource.type;
  const name = typeName(type);
  const plural = pascal(type);
  const node = refOf(type);

  if (inputs.create) {
    const inputName = `Create${name}Input`;
    builder.mutationField(`create${plural}`, (t) =>
      t.field({
        type: [node],
        description: `Creates ${type}, answered in input order. ${ALL_OR_NOTHING}`,
        args: { inputs: t.arg({ type: [inputs.create!], required: true }) },
        complexity: (args) => perRow(args.inputs),
        extensions: { listRows: { inputs: MAX_BULK_ROWS } satisfies ListRows },
        resolve: (_root, args, context) =>
          bulkWrite(type, inputName, args.inputs, context, (rows) => writer(context).createMany(type, rows)),
      }),
    );
  }

  if (inputs.update) {
    const inputName = `Update${name}Input`;
    const updateInput = builder.inputType(`Update${plural}Row`, {
      description: `One row of update${plural}.`,
      fields: (t) => ({
        id: t.int({ required: true }),
        expectedVersion: t.int({ description: expectedVersionDescription('this row') }),
        input: t.field({ type: inputs.update!, required: true }),
      }),
    });
    builder.mutationField(`update${plural}`, (t) =>
      t.field({
        type: [node],
        description: `Changes ${type}, each only in what its input gives; answered in input order. ${ALL_OR_NOTHING}`,
        args: { updates: t.arg({ type: [updateInput], required: true }) },
        complexity: (args) => perRow(args.updates),
        extensions: { listRows: { updates: MAX_BULK_ROWS } satisfies ListRows },
        resolve: (_root, args, context) =>
          write(type, async () => {
            const updates = args.updates.map((u, i) => ({
              id: u.id,
              input: toWriteInput(inputName, u.input as never, `updates[${i}].input`),
              options: conditions(u.expectedVersion),
            }));
            const rows = await writer(context).updateMany(type, updates);
            return rows.map((row) => written(type, row, context));
          }),
      }),
    );
  }

  const key = businessKey(resource);
  if (inputs.create && key) {
    const inputName = `Create${name}Input`;
    const field = attributeField(resource, key, resource.attributes[key]!.column);
    const result = builder.objectRef<{ id: number; outcome: UpsertOutcome }>(`${name}Upsert`).implement({
      description: `What upsert${plural} did with one row.`,
      fields: (t) => ({
        outcome: t.field({ type: UpsertOutcomeEnum, resolve: (row) => row.outcome }),
        [name.charAt(0).toLowerCase() + name.slice(1)]: t.field({ type: node, resolve: (row) => row.id }),
      }),
    });
    builder.mutationField(`upsert${plural}`, (t) =>
      t.field({
        type: [result],
        description: `Creates or updates ${type} matched on \`${field}\`: a row whose values are already stored is left alone (no new version, no log entry). Answered in input order. ${ALL_OR_NOTHING}`,
        args: { inputs: t.arg({ type: [inputs.create!], required: true }) },
        complexity: (args) => perRow(args.inputs),
        extensions: { listRows: { inputs: MAX_BULK_ROWS } satisfies ListRows },
        resolve: (_root, args, context) =>
          bulkWrite(type, inputName, args.inputs, context, (rows) => writer(context).upsertMany(type, rows)),
      }),
    );
  }
}
