/**
 * How both APIs mark what the master-data spec does not have (a description's `extension`): the
 * same words in OpenAPI descriptions and in the GraphQL SDL, so that a client can tell the old
 * interface's floor from what this service adds.
 */

/** `Extension (not in the master-data spec): <why>`. */
export function extensionNote(why: string): string {
  return `Extension (not in the master-data spec): ${why}`;
}

/** The note of a described thing, or undefined when the spec has it. */
export function extensionOf(described: { extension?: string }): string | undefined {
  return described.extension === undefined ? undefined : extensionNote(described.extension);
}
