/**
 * `POST /operations` (../atomic.ts) in the API reference: JSON:API Atomic Operations, several
 * writes of the interface as one.
 */
import type { PathItemObject, ResponseObject, SchemaObject, TagObject } from 'openapi3-ts/oas31';
import { MAX_BULK_ROWS } from '../../data/bulk-writes.ts';
import { MAX_LISTED_ERRORS } from '../../data/error-list.ts';
import { resources } from '../../resources/registry.ts';
import { ATOMIC_MEDIA_TYPE } from '../atomic.ts';
import { JSON_MEDIA, responseRef, schemaRef } from './common.ts';

export const ATOMIC_TAG: TagObject = {
  name: 'operations',
  description:
    'Extension (not in the master-data spec): JSON:API Atomic Operations (https://jsonapi.org/ext/atomic): several writes as one, all or nothing.',
};

const TYPES = resources.map((r) => r.type);

const REF: SchemaObject = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: TYPES },
    id: { type: ['integer', 'string'], description: 'The resource, by id (or by `lid`).' },
    lid: { type: 'string', description: 'A resource added earlier in the same request, by the `lid` it was given.' },
    relationship: { type: 'string', description: 'For an operation on one of its relationships.' },
  },
};

function operationSchema(): SchemaObject {
  return {
    type: 'object',
    required: ['op'],
    properties: {
      op: { type: 'string', enum: ['add', 'update', 'remove'] },
      ref: REF,
      data: {
        description:
          "For a resource: its resource object (an `add` may give a `lid` to refer to it later; relationships may name resources by `lid`). For a relationship: its identifier, `null`, or a list of identifiers (full item objects for a structure's `items`).",
      },
      meta: {
        type: 'object',
        properties: { version: { type: 'integer', minimum: 1 } },
        description:
          'The version the operation expects the resource at, as `If-Match` does for a single write: 412 at another.',
      },
    },
  };
}

/** The answer that refuses an atomic request (../atomic-errors.ts); `bearer`: or the bearer's own (a token without the scope). */
function refusal(description: string, bearer = false): ResponseObject {
  const object = (properties: Record<string, SchemaObject>): SchemaObject => ({ type: 'object', properties });
  const document: SchemaObject = {
    type: 'object',
    required: ['errors', 'error'],
    properties: {
      errors: {
        type: 'array',
        maxItems: MAX_LISTED_ERRORS,
        items: {
          ...object({
            status: { type: 'string' },
            code: { type: 'string' },
            title: { type: 'string' },
            detail: { type: 'string' },
            source: object({ pointer: { type: 'string' } }),
          }),
          required: ['status', 'code', 'title', 'detail'],
        },
      },
      meta: object({ omitted_errors: { type: 'integer', minimum: 1 } }),
      error: object({ code: { type: 'string' }, http_code: { type: 'integer' }, message: { type: 'string' } }),
    },
  };
  return {
    description,
    content: { [JSON_MEDIA]: { schema: bearer ? { oneOf: [document, schemaRef('BearerError')] } : document } },
  };
}

export function atomicPath(): PathItemObject {
  return {
    post: {
      tags: [ATOMIC_TAG.name],
      summary: 'Run several writes as one',
      operationId: 'atomicOperations',
      description: [
        'Scope: `write`.',
        `Up to ${MAX_BULK_ROWS} operations, each one the interface has on its own path: an ADD (\`add\` with data), an UPDATE (\`update\` with data, by \`ref\` or by the data's id or lid), and a relationship's set, add, replace or remove (\`ref.relationship\`: \`update\` sets a to-one or replaces a to-many, \`add\` and \`remove\` change a to-many; a structure's \`items\` take full item objects). The interface removes no resource: a \`remove\` without a relationship is 405.`,
        'One transaction: when operations are refused, nothing is written, and the answer names every one: a JSON:API error document, one error object per refused operation (`status` and `code` as the same write on its own path would answer; `source.pointer` at the operation and, where the fault is one member, at it: `/atomic:operations/1/data/attributes/gtin`), at most ' +
          `${MAX_LISTED_ERRORS} (\`meta.omitted_errors\` counts the rest), and \`error\`: the first of them in shape B, its message led by the operation's pointer. The status is the first error's. An operation naming by \`lid\` a resource whose add was refused is not listed.`,
        'Each resource changed gets one change-log entry. `Idempotency-Key` applies to the whole request.',
      ].join(' '),
      requestBody: {
        required: true,
        content: {
          [ATOMIC_MEDIA_TYPE]: {
            schema: {
              type: 'object',
              required: ['atomic:operations'],
              properties: {
                'atomic:operations': { type: 'array', minItems: 1, maxItems: MAX_BULK_ROWS, items: operationSchema() },
              },
            },
          },
        },
      },
      responses: {
        '200': {
          description:
            'The results, in the order of the operations: `{"data": <resource object>}` for an add or update of a resource (as its GET shows it now), `{}` for a relationship operation.',
          content: {
            [ATOMIC_MEDIA_TYPE]: {
              schema: {
                type: 'object',
                required: ['atomic:results'],
                properties: { 'atomic:results': { type: 'array', items: { type: 'object' } } },
              },
            },
          },
        },
        ...Object.fromEntries(
          [
            ['400', 'A bad operation or body.'],
            [
              '403',
              'An operation the role or the interface refuses (or a token without the `write` scope: the bearer error).',
            ],
            ['404', 'An operation on, or linking to, a resource that does not exist.'],
            ['405', 'An operation the interface does not have (a resource removed).'],
            ['409', 'A unique value taken, a bill-of-material cycle, a type mismatch.'],
            ['412', "An operation whose `meta.version` is not the resource's."],
            ['413', 'A body over the limit.'],
            ['415', "Another media type than the extension's."],
          ].map(([status, said]) => [
            status,
            refusal(`${said} The first error's status; every refused operation is listed.`, status === '403'),
          ]),
        ),
        '401': responseRef('Unauthorized'),
        '422': responseRef('IdempotencyKeyReused'),
        '503': responseRef('ServiceUnavailable'),
      },
    },
  };
}
