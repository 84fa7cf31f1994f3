/**
 * `GET /changes` (../changes.ts) in the API reference: the change log as `changes` resources, and
 * where a follower gets its first cursor (`meta.changes_cursor` of LIST and GET answers).
 */
import type { PathItemObject, SchemaObject, TagObject } from 'openapi3-ts/oas31';
import { LOGGED_TYPES } from '../../data/change-request-entries.ts';
import { DEFAULT_CHANGES_PER_PAGE, MAX_CHANGES_PER_PAGE } from '../changes.ts';
import { ATOM_PATTERN, INT32_MAX, ok, responseRef, schemaRef } from './common.ts';

export const CHANGES_TAG: TagObject = {
  name: 'changes',
  description:
    'Extension (not in the master-data spec): the change log, for delta sync. Read everything once, keep `meta.changes_cursor` of the first answer, then follow `GET /changes?after=<cursor>`: every write committed after that read comes, in commit order, at least once.',
};

const CURSOR: SchemaObject = {
  type: 'string',
  pattern: '^\\d{1,10}$',
  description: 'A position in the change log (opaque: compare nothing but equality; keep it as a string).',
  examples: ['1234'],
};

const TYPES = [...LOGGED_TYPES];

export function changesSchemas(): Record<string, SchemaObject> {
  return { ChangeResource: changeResource(), ChangesPage: changesPage() };
}

function changeResource(): SchemaObject {
  const values: SchemaObject = {
    type: ['object', 'null'],
    description:
      'Attribute and relationship values by name, in the forms resource objects show them (relationships as identifiers, `null` or arrays of identifiers).',
  };
  return {
    type: 'object',
    description:
      'One entry of the change log: a resource one committed write changed. Server-set dates (`modified_date`) are not listed as changed.',
    required: ['type', 'id', 'attributes', 'relationships'],
    additionalProperties: false,
    properties: {
      type: { type: 'string', const: 'changes' },
      id: { ...CURSOR, description: 'Its position in the log: the cursor just after it.' },
      attributes: {
        type: 'object',
        additionalProperties: false,
        required: ['resource_type', 'resource_id', 'op', 'version', 'changed', 'before', 'after', 'actor', 'at'],
        properties: {
          resource_type: { type: 'string', enum: TYPES },
          resource_id: { type: 'integer', minimum: 1, maximum: INT32_MAX },
          op: {
            type: 'string',
            enum: ['created', 'updated', 'deleted'],
            description: '`deleted`: a tombstone (structure items removed or replaced).',
          },
          version: {
            type: 'integer',
            minimum: 1,
            description: 'The resource version after the change (the last one, for `deleted`).',
          },
          changed: {
            type: 'array',
            items: { type: 'string' },
            description: 'The attributes and relationships that changed; all of them on `created` and `deleted`.',
          },
          before: {
            ...values,
            description: `The changed values before (\`null\` on \`created\`). ${values.description}`,
          },
          after: {
            ...values,
            description: `The changed values after (\`null\` on \`deleted\`). ${values.description}`,
          },
          actor: {
            type: 'string',
            description: 'The `client_id` of the API client that wrote it; `cli` for writes outside the APIs.',
          },
          at: { type: 'string', pattern: ATOM_PATTERN, description: 'When it was written (server time).' },
        },
      },
      relationships: {
        type: 'object',
        additionalProperties: false,
        required: ['resource'],
        properties: {
          resource: {
            type: 'object',
            required: ['data'],
            properties: {
              data: {
                type: 'object',
                required: ['type', 'id'],
                properties: { type: { type: 'string', enum: TYPES }, id: { type: 'integer', minimum: 1 } },
              },
            },
          },
        },
      },
    },
  };
}

function changesPage(): SchemaObject {
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', items: schemaRef('ChangeResource'), maxItems: MAX_CHANGES_PER_PAGE },
      meta: {
        type: 'object',
        required: ['cursor', 'has_more'],
        additionalProperties: false,
        properties: {
          cursor: {
            ...CURSOR,
            description:
              'Where to go on from: the last entry shown, or the end of the log when nothing more matched (entries of other types are then passed over).',
          },
          has_more: { type: 'boolean', description: 'More entries are waiting: fetch `links.next` at once.' },
        },
      },
      links: {
        type: 'object',
        required: ['self', 'next'],
        additionalProperties: false,
        properties: {
          self: { type: 'string', format: 'uri' },
          next: {
            type: 'string',
            format: 'uri',
            description:
              'This query from `meta.cursor`: fetch it at once while `has_more`, else poll it (with `If-None-Match`: 304 until something new).',
          },
        },
      },
    },
  };
}

export function changesPath(): PathItemObject {
  return {
    get: {
      tags: [CHANGES_TAG.name],
      summary: 'Follow the change log',
      operationId: 'listChanges',
      description: [
        'Scope: `read`.',
        'The entries after `after`, oldest first, in commit order: an entry below one already seen never appears later.',
        'At least once: a follower may see an entry again after a retry; applying entries in order by `version` makes that harmless.',
        'Entries are kept `CHANGES_RETENTION_DAYS` (90 by default); an older cursor is 410 `cursor_expired`.',
      ].join(' '),
      parameters: [
        {
          name: 'after',
          in: 'query',
          required: false,
          description:
            'The cursor to go on from: `meta.changes_cursor` of a LIST or GET answer, or `meta.cursor` of the last page. Without it: from the oldest entry kept.',
          schema: CURSOR,
        },
        {
          name: 'type',
          in: 'query',
          required: false,
          description:
            'Only entries of these resource types, comma-separated (e.g. `products,product_structure_items`).',
          schema: { type: 'string', examples: ['products,product_structure_items'] },
        },
        {
          name: 'per_page',
          in: 'query',
          required: false,
          description: `Entries per page, 1 to ${MAX_CHANGES_PER_PAGE}.`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_CHANGES_PER_PAGE, default: DEFAULT_CHANGES_PER_PAGE },
        },
        { $ref: '#/components/parameters/If-None-Match' },
      ],
      responses: {
        '200': ok('A page of the change log.', schemaRef('ChangesPage'), {
          ETag: { $ref: '#/components/headers/ETag' },
          'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
        }),
        '304': responseRef('NotModified'),
        '400': responseRef('BadRequest'),
        '401': responseRef('Unauthorized'),
        '403': responseRef('ForbiddenScope'),
        '410': responseRef('CursorExpired'),
        '503': responseRef('ServiceUnavailable'),
      },
    },
  };
}
