/**
 * `/change_requests` (../change-requests.ts) in the API reference: writes that wait for another
 * client's approval or a date, and the 202 a write of a role that needs approval answers.
 */
import type { OperationObject, ParameterObject, PathItemObject, SchemaObject, TagObject } from 'openapi3-ts/oas31';
import { resources } from '../../resources/registry.ts';
import { MAX_COMMENT_LENGTH } from '../../change-requests/input.ts';
import { CHANGE_REQUEST_STATES } from '../../change-requests/states.ts';
import { ATOM_PATTERN, jsonBody, LOCATION, ok, responseRef, schemaRef } from './common.ts';
import { ID_PARAMETER } from './parameters.ts';
import { PAGING } from './webhooks.ts';

export const CHANGE_REQUESTS_TAG: TagObject = {
  name: 'change_requests',
  description: [
    'Extension (not in the master-data spec): writes that wait. A change request holds an Atomic Operations document (as `POST /operations` takes it), applied all or nothing once a client other than its author approves it: at once, or at its `effective_date`.',
    'A role whose rule says `"approval": "required"` makes its writes this way: the write answers 202 with the request, and nothing is written until then.',
    'Approving needs a role that may `approve` every type the request writes and could make every change itself. A request is seen by its author, by those who may approve it, and by admin; inside it, only the fields the reader’s role sees.',
  ].join(' '),
};

const DATE: SchemaObject = { type: 'string', pattern: ATOM_PATTERN };
const COMMENT: SchemaObject = { type: ['string', 'null'], maxLength: MAX_COMMENT_LENGTH };

export function changeRequestSchemas(): Record<string, SchemaObject> {
  return {
    ChangeRequest: {
      type: 'object',
      required: ['type', 'id', 'attributes', 'links'],
      properties: {
        type: { type: 'string', const: 'change_requests' },
        id: { type: 'string', pattern: '^\\d+$' },
        attributes: {
          type: 'object',
          properties: {
            state: { type: 'string', enum: [...CHANGE_REQUEST_STATES] },
            comment: COMMENT,
            effective_date: { ...DATE, type: ['string', 'null'] },
            author: { type: 'string', description: 'The client_id of the client that made it.' },
            types: { type: 'array', items: { type: 'string', enum: resources.map((r) => r.type) } },
            operations: {
              type: 'array',
              items: { type: 'object' },
              description: 'The `atomic:operations` it applies.',
            },
            failure: { type: ['string', 'null'], description: 'Why applying it failed (state `failed`).' },
            decisions: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  decision: { type: 'string', enum: ['approved', 'rejected', 'withdrawn'] },
                  by: { type: 'string' },
                  comment: COMMENT,
                  at: DATE,
                },
              },
            },
            changes_cursor: {
              type: ['string', 'null'],
              description: 'Once applied: the change-log position of its last entry.',
            },
            version: { type: 'integer', minimum: 1 },
            created_date: DATE,
            modified_date: DATE,
            settled_date: { ...DATE, type: ['string', 'null'] },
          },
        },
        links: { type: 'object', properties: { self: { type: 'string', format: 'uri' } } },
      },
    },
    ChangeRequestInput: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['type', 'attributes'],
          properties: {
            type: { type: 'string', const: 'change_requests' },
            attributes: {
              type: 'object',
              required: ['operations'],
              additionalProperties: false,
              properties: {
                operations: { type: 'array', minItems: 1, items: { type: 'object' } },
                comment: COMMENT,
                effective_date: { ...DATE, description: 'When it takes effect once approved: an instant to come.' },
              },
            },
          },
        },
      },
    },
  };
}

const one: SchemaObject = { type: 'object', required: ['data'], properties: { data: schemaRef('ChangeRequest') } };

const COMMON = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('Forbidden'),
  '503': responseRef('ServiceUnavailable'),
};

const LIST_PARAMETERS: ParameterObject[] = [
  { name: 'state', in: 'query', required: false, schema: { type: 'string', enum: [...CHANGE_REQUEST_STATES] } },
  ...PAGING,
];

function operation(id: string, summary: string, description: string, rest: Partial<OperationObject>): OperationObject {
  return {
    tags: [CHANGE_REQUESTS_TAG.name],
    operationId: id,
    summary,
    description,
    ...rest,
    responses: { ...COMMON, ...rest.responses },
  };
}

const DECISIONS = {
  approve: [
    'approveChangeRequest',
    'Approve a change request',
    'Another client than its author, whose role may approve every type it writes and could make every change itself. Without an effective date it is applied at once (`applied`, or `failed` with the reason when a version it expects moved on); with one to come it is `scheduled`.',
  ],
  reject: [
    'rejectChangeRequest',
    'Reject a change request',
    'A pending or scheduled one; by a client that may approve it.',
  ],
  withdraw: ['withdrawChangeRequest', 'Withdraw a change request', 'A pending or scheduled one; by its author.'],
} as const;

export function changeRequestPaths(): Record<string, PathItemObject> {
  const decisionBody = jsonBody(
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        meta: { type: 'object', additionalProperties: false, properties: { comment: COMMENT } },
      },
    },
    'Optional: a comment kept with the decision.',
  );
  return {
    '/change_requests': {
      get: operation('listChangeRequests', 'List change requests', 'Newest first: the ones this client may see.', {
        parameters: LIST_PARAMETERS,
        responses: {
          '200': ok('A page of change requests.', {
            type: 'object',
            properties: { data: { type: 'array', items: schemaRef('ChangeRequest') }, meta: { type: 'object' } },
          }),
          '400': responseRef('BadRequest'),
        },
      }),
      post: operation(
        'createChangeRequest',
        'Propose a change request',
        'Its operations are tried as the author’s role would make them (and rolled back): one that could never apply is refused as `POST /operations` refuses it. Scope: `write`.',
        {
          requestBody: jsonBody(schemaRef('ChangeRequestInput'), 'The operations, a comment, an effective date.'),
          responses: {
            '201': ok('The request, pending.', one, LOCATION),
            '400': responseRef('BadRequestBody'),
            '404': responseRef('NotFound'),
            '409': responseRef('ConflictOnPost'),
            '412': responseRef('PreconditionFailed'),
            '415': responseRef('UnsupportedMediaType'),
          },
        },
      ),
    },
    '/change_requests/{id}': {
      parameters: [ID_PARAMETER],
      get: operation('getChangeRequest', 'Read a change request', 'One this client may not see is not found.', {
        responses: { '200': ok('The request.', one), '404': responseRef('NotFound') },
      }),
    },
    '/change_requests/{id}/preview': {
      parameters: [ID_PARAMETER],
      get: operation(
        'previewChangeRequest',
        'What a change request would write',
        'Each resource it writes, as it is now (`now`) and as applying it would leave it (`after`), as this client’s role sees them.',
        {
          responses: {
            '200': ok('The resources, now and after.', { type: 'object', properties: { data: { type: 'array' } } }),
            '404': responseRef('NotFound'),
          },
        },
      ),
    },
    ...Object.fromEntries(
      Object.entries(DECISIONS).map(([decision, [id, summary, description]]) => [
        `/change_requests/{id}/${decision}`,
        {
          parameters: [ID_PARAMETER],
          post: operation(id, summary, `${description} Scope: \`write\`.`, {
            requestBody: { ...decisionBody, required: false },
            responses: {
              '200': ok('The request as it now is.', one),
              '400': responseRef('BadRequestBody'),
              '404': responseRef('NotFound'),
              '409': responseRef('ConflictOnPost'),
            },
          }),
        },
      ]),
    ),
  };
}
