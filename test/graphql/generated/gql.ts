/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query ProductPage($id: Int!) {\n  product(id: $id) {\n    id\n    reference\n    name {\n      en\n    }\n  }\n}": typeof types.ProductPageDocument,
    "query ProductsWithStructures($first: Int, $after: String, $filter: ProductFilter) {\n  products(first: $first, after: $after, filter: $filter) {\n    nodes {\n      id\n      reference\n      name {\n        en\n      }\n      unit {\n        id\n        reference\n      }\n      productGroup {\n        id\n        description {\n          en\n        }\n      }\n      productStructure {\n        id\n        quantity\n        items {\n          id\n          netQuantity\n          product {\n            id\n            reference\n          }\n          unit {\n            id\n            reference\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": typeof types.ProductsWithStructuresDocument,
};
const documents: Documents = {
    "query ProductPage($id: Int!) {\n  product(id: $id) {\n    id\n    reference\n    name {\n      en\n    }\n  }\n}": types.ProductPageDocument,
    "query ProductsWithStructures($first: Int, $after: String, $filter: ProductFilter) {\n  products(first: $first, after: $after, filter: $filter) {\n    nodes {\n      id\n      reference\n      name {\n        en\n      }\n      unit {\n        id\n        reference\n      }\n      productGroup {\n        id\n        description {\n          en\n        }\n      }\n      productStructure {\n        id\n        quantity\n        items {\n          id\n          netQuantity\n          product {\n            id\n            reference\n          }\n          unit {\n            id\n            reference\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}": types.ProductsWithStructuresDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ProductPage($id: Int!) {\n  product(id: $id) {\n    id\n    reference\n    name {\n      en\n    }\n  }\n}"): (typeof documents)["query ProductPage($id: Int!) {\n  product(id: $id) {\n    id\n    reference\n    name {\n      en\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query ProductsWithStructures($first: Int, $after: String, $filter: ProductFilter) {\n  products(first: $first, after: $after, filter: $filter) {\n    nodes {\n      id\n      reference\n      name {\n        en\n      }\n      unit {\n        id\n        reference\n      }\n      productGroup {\n        id\n        description {\n          en\n        }\n      }\n      productStructure {\n        id\n        quantity\n        items {\n          id\n          netQuantity\n          product {\n            id\n            reference\n          }\n          unit {\n            id\n            reference\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"): (typeof documents)["query ProductsWithStructures($first: Int, $after: String, $filter: ProductFilter) {\n  products(first: $first, after: $after, filter: $filter) {\n    nodes {\n      id\n      reference\n      name {\n        en\n      }\n      unit {\n        id\n        reference\n      }\n      productGroup {\n        id\n        description {\n          en\n        }\n      }\n      productStructure {\n        id\n        quantity\n        items {\n          id\n          netQuantity\n          product {\n            id\n            reference\n          }\n          unit {\n            id\n            reference\n          }\n        }\n      }\n    }\n    pageInfo {\n      hasNextPage\n      endCursor\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;