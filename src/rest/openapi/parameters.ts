/**
 * The parameters of the REST API's operations: the path id, paging, each type's filters
 * (../query.ts reads them), `include`, and the headers of conditional requests and safe retries.
 */
import type { ParameterObject, ReferenceObject } from 'openapi3-ts/oas31';
import type { Filter } from '../../resources/types.ts';
import { DEFAULT_PER_PAGE, includeValues, MAX_PER_PAGE } from '../query.ts';
import type { RestRoute } from '../routes.ts';
import { ATOM_EXAMPLE, INT32_MAX } from './common.ts';

export const ID_PARAMETER: ParameterObject = {
  name: 'id',
  in: 'path',
  required: true,
  description: `The resource id, from 1 to ${INT32_MAX}. Anything else names no resource: 404.`,
  schema: { type: 'integer', minimum: 1, maximum: INT32_MAX },
};

/** The shared parameters, each once in components. */
export const PARAMETERS: Record<string, ParameterObject> = {
  page: {
    name: 'page',
    in: 'query',
    required: false,
    description: `The page, from 1 (to ${INT32_MAX}).`,
    schema: { type: 'integer', minimum: 1, maximum: INT32_MAX, default: 1 },
  },
  per_page: {
    name: 'per_page',
    in: 'query',
    required: false,
    description: `Resources per page, 1 to ${MAX_PER_PAGE}.`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
  },
  'If-None-Match': {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description: 'Entity tags (`"..."`, `W/"..."`) or `*`: when one is the answer\'s current tag, 304 without a body.',
    schema: { type: 'string' },
  },
  'If-Match': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      "The resource's tag as `GET /{type}/{id}` (without `include`) answered it, or `*`. When the resource has changed since, 412 `precondition_failed` and nothing is written; without it the write goes ahead. Weak tags never match.",
    schema: { type: 'string' },
  },
  'If-Match-ADD': {
    name: 'If-Match',
    in: 'header',
    required: false,
    description: 'Only `*` can hold: a resource not yet added has no tag (any other value is 412).',
    schema: { type: 'string' },
  },
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'A key of your choosing (1 to 255 visible ASCII characters, bare or quoted) that makes retrying safe: within 24 hours the same request with the same key (same client, method, path, query and body) writes nothing again and gets the first answer, with `Idempotent-Replayed: true`. The same key with another request: 422 `idempotency_key_reused`; while the first still runs: 409 `idempotency_key_in_use` with `Retry-After`.',
    schema: { type: 'string', minLength: 1, maxLength: 257 },
  },
};

export function filterParameter(name: string, filter: Filter): ParameterObject {
  const base = { name, in: 'query' as const, required: false };
  switch (filter.kind) {
    case 'equals':
      return {
        ...base,
        description: `Only the resources whose \`${filter.column}\` is exactly this.`,
        schema: { type: 'string' },
      };
    case 'integer':
      return {
        ...base,
        description: `Only the resources whose \`${filter.column}\` is this id.`,
        schema: { type: 'integer', format: 'int32' },
      };
    case 'flag':
      return {
        ...base,
        description: `\`1\`: only the resources whose \`${filter.column}\` is true; \`0\`: only those whose it is false.`,
        schema: { type: 'integer', enum: [0, 1] },
      };
    case 'gtin':
      return {
        ...base,
        description:
          'Only the product with this GTIN, as digits; a GTIN stored with leading zeros is found without them too.',
        schema: { type: 'string', pattern: '^[0-9]{1,14}$' },
      };
    case 'relatedReference':
      return {
        ...base,
        description: `Only the resources whose \`${filter.relationship}\` has this \`reference\`.`,
        schema: { type: 'string' },
      };
    case 'after':
      return {
        ...base,
        description: `Only the resources with \`${filter.column}\` strictly after this ATOM date-time (\`${ATOM_EXAMPLE}\`; a \`Z\` suffix and fractional seconds are accepted).`,
        schema: { type: 'string', format: 'date-time', examples: [ATOM_EXAMPLE] },
      };
  }
}

export function includeParameter(route: RestRoute): ParameterObject | undefined {
  const values = includeValues(route);
  if (values.size === 0) return undefined;
  const aliases = [...values]
    .filter(([spelling, name]) => spelling !== name)
    .map(([spelling, name]) => `\`${spelling}\` is taken as \`${name}\``);
  return {
    name: 'include',
    in: 'query',
    required: false,
    description: `Related resources to side-load into \`included\`, comma-separated. Any other value is 400 \`invalid_parameter\`.${aliases.length > 0 ? ` ${aliases.join('; ')}.` : ''}`,
    style: 'form',
    explode: false,
    schema: { type: 'array', uniqueItems: true, items: { type: 'string', enum: [...values.keys()] } },
  };
}

/**
 * Adds the header parameters of conditional requests and retries an operation takes:
 * If-None-Match on reads, If-Match on writes, Idempotency-Key on POSTs.
 */
export function addConditionalParameters(route: RestRoute, parameters: (ParameterObject | ReferenceObject)[]): void {
  if (route.method === 'GET') parameters.push({ $ref: '#/components/parameters/If-None-Match' });
  else parameters.push({ $ref: `#/components/parameters/${route.operation === 'add' ? 'If-Match-ADD' : 'If-Match'}` });
  if (route.method === 'POST') parameters.push({ $ref: '#/components/parameters/Idempotency-Key' });
}
