/**
 * Limits on every GraphQL operation, checked before anything is executed; each breach is a
 * GraphQL error that says which limit and by how much. Sized so that the heaviest legitimate
 * reads (100 products with their bill of material and each item's product and unit) pass.
 */
export const GRAPHQL_LIMITS = {
  /** Lexical tokens in the document (the introspection query GraphiQL sends has about 350). */
  tokens: 5000,
  /** Nesting of selections, fragments counted where they are spread. */
  depth: 12,
  /** Aliased fields per operation. */
  aliases: 30,
  /** Directives per operation. */
  directives: 50,
  /**
   * Estimated cost: 1 per field, nested selections multiplied by the page size of a connection
   * (`first`, 20 by default) or by 10 for a list. 100 products with every attribute, their
   * structure, items and the items' products cost about 56,000; a third level of pages of 100
   * (100 x 100 x 100 rows) is far beyond the limit.
   */
  complexity: 200_000,
  /** Selected fields per operation, in all. */
  breadth: 1000,
} as const;
