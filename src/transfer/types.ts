/** The `--types` option of the data tools: resource types by the spec's names, all when not given. */
import { resourceByType, resources } from '../resources/registry.ts';

/** A bad argument: the command says so and exits with 2 (src/command.ts). */
export class UsageError extends Error {}

export function typesOf(list: string | undefined, usage: string): string[] {
  if (list === undefined) return resources.map((r) => r.type);
  const types = list.split(',').map((t) => t.trim());
  const unknown = types.filter((t) => !resourceByType(t));
  if (unknown.length > 0) throw new UsageError(`unknown type ${unknown.join(', ')}\n${usage}`);
  return types;
}
