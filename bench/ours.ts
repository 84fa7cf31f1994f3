/**
 * Our server's side of each workload: the GraphQL request and the REST call that read the same
 * data as PostGraphile does for it (peer/queries.ts; print the peer's queries with
 * `tsx bench/run.ts --print-queries`), and how each answer turns into the neutral shape
 * (lib/neutral.ts), which the runner compares before any timing; and W5's update, as a mutation
 * and as a PATCH.
 *
 * A case is resolved per database (bench/workloads.ts): the workload, its page size and its
 * parameters there: `params.id`, or `params.page`, `pageSize`, `offset`, `afterId`, `active`,
 * `modifiedAfter`, `expectedIds`.
 */
import { encodeCursor } from '../src/graphql/connections.ts';
import { attributeField, camel, singular } from '../src/resources/names.ts';
import type { GraphQLRequest } from './peer/queries.ts';
import {
  attributeEntries,
  byId,
  canonicalAttribute,
  canonicalDecimal,
  definition,
  relationshipTarget,
  type Neutral,
  type NeutralResource,
  type Selection,
} from './lib/neutral.ts';
import type { ProductUpdate, ReadCase, ReadWorkloadName, Totals } from './workloads.ts';

export interface OurWorkload {
  /**
   * Our GraphQL request (POST /graphql) for the case, in our own field names (`product(id:)`,
   * `products(first:, after:, ...)`, camelCase of the spec's names), every attribute of every
   * resource selected, as the peer's query does.
   */
  graphql: (c: ReadCase) => GraphQLRequest;
  /** Our GraphQL answer (the parsed JSON body) in the neutral shape. Throws on `errors`. */
  normaliseGraphql: (c: ReadCase, body: unknown) => Neutral;
  /** Our GraphQL answer's totals (W6: totalCount and aggregate), for a workload that reads them. */
  graphqlTotals?: (c: ReadCase, body: unknown) => Totals;
  /**
   * Our REST call for the case: path and query string (e.g. `/products/6501`), or undefined where
   * REST cannot express it (per_page is at most 50, or `restMissing`).
   */
  rest: (c: ReadCase) => string | undefined;
  /** Why REST has no call for this workload at all (shown as the skip's reason). */
  restMissing?: string;
  /**
   * The part of the workload's selection the REST answer holds; the peer's answer is cut down to it
   * before comparing. Defaults to the first level of relationships (REST includes one level).
   */
  restSelection?: Selection;
  /** Our REST document in the neutral shape. Defaults to fromJsonApi(body, restSelection). */
  normaliseRest?: (c: ReadCase, body: unknown) => Neutral;
}

/**
 * The REST call rest.md implies for a case: GET /{type}/{id}, or GET /{type} with page, per_page,
 * include (first-level relationships) and the spec's filters. Written from the contract before
 * the REST layer exists: check it against the real thing when plugging REST in.
 */
export function restPath(c: ReadCase): string | undefined {
  const { workload, params } = c;
  const include = Object.keys(workload.include);
  const query = new URLSearchParams();
  if (include.length > 0) query.set('include', include.join(','));
  if (params.shape === 'one') return `/${workload.type}/${params.id}${query.size ? `?${query}` : ''}`;
  if (params.pageSize > 50) return undefined;
  if (params.active !== undefined) query.set('active', params.active ? '1' : '0');
  if (params.modifiedAfter !== undefined) query.set('modified_after', params.modifiedAfter);
  query.set('page', String(params.page));
  query.set('per_page', String(params.pageSize));
  // URLSearchParams encodes ',' as %2C; both are the same value, the plain form reads better.
  return `/${workload.type}?${query.toString().replace(/%2C/g, ',')}`;
}

/** The first level of a selection: what one REST `include` can return. */
export function firstLevel(selection: Selection): Selection {
  return Object.fromEntries(Object.keys(selection).map((name) => [name, {}]));
}

/**
 * Our selection set for a resource: id, every attribute (or those named, at the root: W6), the
 * selected relationships (graphql.md names).
 */
function selectionSet(type: string, selection: Selection, indent: string, attributes?: readonly string[]): string {
  const def = definition(type);
  const lines = ['id'];
  for (const [name, a] of attributeEntries(def, attributes)) {
    const field = attributeField(def, name, a.column);
    if (a.type === 'localized') lines.push(`${field} { nl fr en de }`);
    else if (typeof a.type === 'object') lines.push(`${field} { ${Object.keys(a.type.object).map(camel).join(' ')} }`);
    else lines.push(field);
  }
  for (const [name, below] of Object.entries(selection)) {
    lines.push(
      `${camel(name)} {\n${selectionSet(relationshipTarget(type, name).target, below, `${indent}  `)}\n${indent}}`,
    );
  }
  return lines.map((l) => `${indent}${l}`).join('\n');
}

/** Our request for a case: `product(id:)`, or a page of `products(first:, after:, filter:)` in id order. */
function ourRequest(c: ReadCase): GraphQLRequest {
  const { workload, params } = c;
  const operation = `${workload.name}${c.pageSize && c.pageSize !== workload.pageSize ? `_${c.pageSize}` : ''}`;
  if (params.shape === 'one') {
    const body = selectionSet(workload.type, workload.include, '    ');
    return {
      query: `query ${operation}($id: Int!) {\n  ${camel(singular(workload.type))}(id: $id) {\n${body}\n  }\n}`,
      variables: { id: params.id },
    };
  }
  const filter: Record<string, unknown> = {};
  if (params.active !== undefined) filter.isActive = params.active;
  if (params.modifiedAfter !== undefined) filter.modifiedAfter = params.modifiedAfter.replace('+00:00', 'Z');
  const variables: Record<string, unknown> = { first: params.pageSize, filter };
  // A cursor is a position and, in id order, the row's id: `after` the row before the page's first.
  if (params.offset > 0) variables.after = encodeCursor(params.offset - 1, params.afterId);
  const body = selectionSet(workload.type, workload.include, '      ');
  const filterType = `${workload.type === 'products' ? 'Product' : workload.type === 'customers' ? 'Customer' : 'Supplier'}Filter`;
  const query = `query ${operation}($first: Int!, $after: String, $filter: ${filterType}) {\n  ${camel(workload.type)}(first: $first, after: $after, filter: $filter) {\n    nodes {\n${body}\n    }\n  }\n}`;
  return { query, variables };
}

type Node = Record<string, unknown>;

function neutralOf(
  type: string,
  node: Node,
  selection: Selection,
  attributeNames?: readonly string[],
): NeutralResource {
  const def = definition(type);
  const attributes = Object.fromEntries(
    attributeEntries(def, attributeNames).map(([name, a]) => {
      const value = node[attributeField(def, name, a.column)];
      return [
        name,
        canonicalAttribute(a.type, (part) =>
          part === undefined ? value : (value as Node | null)?.[a.type === 'localized' ? part : camel(part)],
        ),
      ];
    }),
  );
  const relationships: NeutralResource['relationships'] = {};
  for (const [name, below] of Object.entries(selection)) {
    const { target } = relationshipTarget(type, name);
    const related = node[camel(name)] as Node | Node[] | null;
    relationships[name] = Array.isArray(related)
      ? byId(related.map((r) => neutralOf(target, r, below)))
      : related
        ? neutralOf(target, related, below)
        : null;
  }
  return { type, id: Number(node.id), attributes, relationships };
}

/** Our JSON answer to ourRequest(c), in the neutral shape. Throws on GraphQL errors. */
function normaliseOurs(c: ReadCase, body: unknown): Neutral {
  const { data, errors } = body as { data?: Record<string, unknown> | null; errors?: { message: string }[] };
  if (errors?.length) throw new Error(`ours: ${errors.map((e) => e.message).join('; ')}`);
  const { workload, params } = c;
  if (params.shape === 'one') {
    const node = data?.[camel(singular(workload.type))] as Node | null | undefined;
    return node ? neutralOf(workload.type, node, workload.include) : null;
  }
  const nodes = (data?.[camel(workload.type)] as { nodes: Node[] } | undefined)?.nodes;
  if (!nodes) throw new Error(`ours: no ${camel(workload.type)} in the answer`);
  return nodes.map((n) => neutralOf(workload.type, n, workload.include, workload.attributes));
}

const graphql = { graphql: ourRequest, normaliseGraphql: normaliseOurs };

/**
 * W6 through our `where` (query.md): the name in any language `contains` the fragment
 * (case-insensitive), the consumer price within the range (inclusive; Decimal is a JSON number),
 * and a structure with `some` item whose product is in the group; the first page, in id order,
 * with totalCount and the aggregate over the whole filtered list.
 */
function ourW6Request(c: ReadCase): GraphQLRequest {
  const { params, workload } = c;
  if (params.shape !== 'list' || params.nameContains === undefined || !params.consumerPrice)
    throw new Error(`${c.key}: not W6's parameters`);
  const body = selectionSet(workload.type, workload.include, '      ', workload.attributes);
  return {
    query: `query ${workload.name}($text: String!, $min: Decimal!, $max: Decimal!, $group: Int!) {
  products(first: ${params.pageSize}, where: {
    name: { any: { contains: $text } }
    consumerPrice: { gte: $min, lte: $max }
    productStructure: { items: { some: { product: { productGroup: { id: { equals: $group } } } } } }
  }) {
    totalCount
    aggregate { count min { consumerPrice } max { consumerPrice } sum { consumerPrice } }
    nodes {
${body}
    }
  }
}`,
    variables: {
      text: params.nameContains,
      min: Number(params.consumerPrice.min),
      max: Number(params.consumerPrice.max),
      group: params.componentGroup,
    },
  };
}

function ourW6Totals(_: ReadCase, body: unknown): Totals {
  const { data } = body as { data?: Record<string, unknown> | null };
  const connection = data?.products as
    | {
        totalCount: number;
        aggregate: { count: number } & Record<'min' | 'max' | 'sum', { consumerPrice: unknown } | null>;
      }
    | undefined;
  if (!connection) throw new Error('ours: no totals in the answer');
  const { totalCount, aggregate } = connection;
  return {
    totalCount,
    aggregate: {
      count: aggregate.count,
      min: canonicalDecimal(aggregate.min?.consumerPrice),
      max: canonicalDecimal(aggregate.max?.consumerPrice),
      sum: canonicalDecimal(aggregate.sum?.consumerPrice),
    },
  };
}

export const OURS: Record<ReadWorkloadName, OurWorkload> = {
  // The REST calls are rest.md's (restPath); check them, and fromJsonApi, against the real REST
  // layer when it answers.
  W0: { ...graphql, rest: restPath },
  W1: { ...graphql, rest: restPath },
  // REST: a product's structure can be included, its items cannot (include values are one level,
  // rest.md), so REST W2 returns less than GraphQL W2 and is compared on that part only.
  W2: { ...graphql, rest: restPath },
  W3: { ...graphql, rest: restPath },
  W4: { ...graphql, rest: restPath },
  // REST's list filters are the spec's equalities and modified_after (rest.md): no text, range or
  // condition through a relationship, and no aggregates.
  W6: {
    graphql: ourW6Request,
    normaliseGraphql: normaliseOurs,
    graphqlTotals: ourW6Totals,
    rest: () => undefined,
    restMissing: "REST has no W6: rest.md's filters have no text fragment, range, relationship condition or aggregate",
  },
};

/**
 * W5 through our server. GraphQL: `updateProduct(id:, input:)`, selecting the id only (graphql.md:
 * localized text is merged language by language). REST: `PATCH /products/{id}` with the two
 * attributes (rest.md: `name` merged key by key, a decimal as a JSON number), which answers with
 * the whole document, as the protocol does.
 */
export const OUR_UPDATE = {
  graphql: (u: ProductUpdate): GraphQLRequest => ({
    query:
      'mutation W5($id: Int!, $input: UpdateProductInput!) {\n  updateProduct(id: $id, input: $input) {\n    id\n  }\n}',
    variables: { id: u.id, input: { consumerPrice: u.consumerPrice, name: { en: u.nameEn } } },
  }),
  rest: (u: ProductUpdate) => ({
    path: `/products/${u.id}`,
    body: {
      data: {
        type: 'products',
        id: u.id,
        attributes: { consumer_price: Number(u.consumerPrice), name: { en: u.nameEn } },
      },
    },
  }),
};
