/**
 * `/webhooks` (../webhooks.ts) in the API reference: each client's endpoints, their deliveries,
 * replay and secret rotation; and, in the tag's description, what a delivery looks like.
 */
import type { OperationObject, ParameterObject, PathItemObject, SchemaObject, TagObject } from 'openapi3-ts/oas31';
import { LOGGED_TYPES } from '../../data/change-request-entries.ts';
import { OPS } from '../../webhooks/endpoints.ts';
import { ATOM_PATTERN, jsonBody, LOCATION, ok, responseRef, schemaRef } from './common.ts';
import { ID_PARAMETER } from './parameters.ts';

export const WEBHOOKS_TAG: TagObject = {
  name: 'webhooks',
  description: [
    'Extension (not in the master-data spec): endpoints this service calls with every change its owner may see, one change-log entry per call, signed as the Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`; verify with the `standardwebhooks` library and the secret shown when the endpoint was made).',
    'The body is `{"type": "products.updated", "timestamp": ..., "data": <the entry as GET /changes shows it>}`.',
    "A resource's changes arrive in log order: the next waits until the one before was answered 2xx or given up. A failed call is tried again with backoff for up to 24 hours, then dead-lettered (in `deliveries`, sent again by `replay`). Redirects are not followed. Scope: `write`; a client sees only its own endpoints.",
  ].join(' '),
};

const TYPES = [...LOGGED_TYPES];
const DATE: SchemaObject = { type: 'string', pattern: ATOM_PATTERN };

function attributes(forWrite: boolean): Record<string, SchemaObject> {
  return {
    url: {
      type: 'string',
      format: 'uri',
      description:
        '`https://` (or `http://` where the operator allows it); never a private, loopback, link-local or metadata address unless the operator allows its network.',
    },
    types: { type: 'array', items: { type: 'string', enum: TYPES }, description: 'Resource types; empty: all.' },
    ops: { type: 'array', items: { type: 'string', enum: [...OPS] }, description: 'Operations; empty: all.' },
    where: {
      type: ['object', 'null'],
      description:
        'Per resource type, a filter (the `where` language of the lists) on the resource as it is after the change (before it, for deletions): its own fields and its to-one relationships.',
    },
    description: { type: ['string', 'null'], maxLength: 1000 },
    is_active: {
      type: 'boolean',
      description: forWrite ? 'false pauses it; true goes on from where it stopped.' : 'Whether it is called.',
    },
  };
}

export function webhookSchemas(): Record<string, SchemaObject> {
  return {
    Webhook: {
      type: 'object',
      required: ['type', 'id', 'attributes', 'links'],
      properties: {
        type: { type: 'string', const: 'webhooks' },
        id: { type: 'integer', minimum: 1 },
        attributes: {
          type: 'object',
          properties: {
            ...attributes(false),
            status: {
              type: 'string',
              enum: ['healthy', 'failing', 'disabled'],
              description: '`disabled` after days with no success: set `is_active` to enable it again.',
            },
            created_date: DATE,
            modified_date: DATE,
            secret: {
              type: 'string',
              pattern: '^whsec_',
              description: 'Only in the answers of creation and rotation: the signing secret.',
            },
          },
        },
        links: { type: 'object', properties: { self: { type: 'string', format: 'uri' } } },
      },
    },
    WebhookInput: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          type: 'object',
          required: ['type', 'attributes'],
          properties: {
            type: { type: 'string', const: 'webhooks' },
            attributes: { type: 'object', additionalProperties: false, properties: attributes(true) },
          },
        },
      },
    },
    WebhookDelivery: {
      type: 'object',
      properties: {
        type: { type: 'string', const: 'webhook_deliveries' },
        id: { type: 'string', description: 'Its `webhook-id`, the same on every attempt.' },
        attributes: {
          type: 'object',
          properties: {
            change: { type: 'string', description: 'The entry’s cursor.' },
            event_type: { type: 'string', examples: ['products.updated'] },
            resource_type: { type: 'string', enum: TYPES },
            resource_id: { type: 'integer' },
            status: { type: 'string', enum: ['delivered', 'retrying', 'dead'] },
            attempts: { type: 'integer', minimum: 1 },
            next_attempt_date: { ...DATE, type: ['string', 'null'] },
            created_date: DATE,
            modified_date: DATE,
            attempt_log: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  attempted_date: DATE,
                  status_code: { type: ['integer', 'null'] },
                  error: { type: ['string', 'null'] },
                  latency_ms: { type: 'integer' },
                  response: { type: ['string', 'null'], description: 'The first 1 KB of the answer.' },
                },
              },
            },
          },
        },
      },
    },
  };
}

/** `page` and `per_page` of the extensions' own lists (webhooks, change requests). */
export const PAGING: ParameterObject[] = [
  { name: 'page', in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } },
  {
    name: 'per_page',
    in: 'query',
    required: false,
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
  },
];

const page = (item: string): SchemaObject => ({
  type: 'object',
  properties: {
    data: { type: 'array', items: schemaRef(item) },
    meta: {
      type: 'object',
      properties: {
        page: { type: 'integer' },
        per_page: { type: 'integer' },
        total: { type: 'integer' },
        pages: { type: 'integer' },
      },
    },
  },
});
const one: SchemaObject = { type: 'object', required: ['data'], properties: { data: schemaRef('Webhook') } };

const COMMON = {
  '401': responseRef('Unauthorized'),
  '403': responseRef('Forbidden'),
  '503': responseRef('ServiceUnavailable'),
};

function operation(id: string, summary: string, description: string, rest: Partial<OperationObject>): OperationObject {
  return {
    tags: [WEBHOOKS_TAG.name],
    operationId: id,
    summary,
    description: `Scope: \`write\`. ${description}`,
    ...rest,
    responses: { ...COMMON, ...rest.responses },
  };
}

export function webhookPaths(): Record<string, PathItemObject> {
  const body = jsonBody(schemaRef('WebhookInput'), 'The endpoint’s attributes.');
  return {
    '/webhooks': {
      get: operation(
        'listWebhooks',
        'List this client’s webhook endpoints',
        'Oldest first; the secret is never shown.',
        {
          parameters: PAGING,
          responses: { '200': ok('A page of endpoints.', page('Webhook')), '400': responseRef('BadRequest') },
        },
      ),
      post: operation(
        'createWebhook',
        'Make a webhook endpoint',
        'Told of the changes committed from now on. The answer holds the signing secret, shown only here.',
        {
          requestBody: body,
          responses: {
            '201': ok('The endpoint, with its secret.', one, LOCATION),
            '400': responseRef('BadRequestBody'),
            '409': responseRef('Conflict'),
            '415': responseRef('UnsupportedMediaType'),
          },
        },
      ),
    },
    '/webhooks/{id}': {
      parameters: [ID_PARAMETER],
      get: operation('getWebhook', 'Read a webhook endpoint', 'Another client’s endpoint is not found.', {
        responses: {
          '200': ok('The endpoint.', one),
          '400': responseRef('BadRequest'),
          '404': responseRef('NotFound'),
        },
      }),
      patch: operation(
        'updateWebhook',
        'Change a webhook endpoint',
        'The attributes given; a change of filters applies to what is not yet delivered.',
        {
          requestBody: body,
          responses: {
            '200': ok('The endpoint.', one),
            '400': responseRef('BadRequestBody'),
            '404': responseRef('NotFound'),
            '409': responseRef('Conflict'),
            '415': responseRef('UnsupportedMediaType'),
          },
        },
      ),
      delete: operation('deleteWebhook', 'Delete a webhook endpoint', 'With its deliveries and attempts.', {
        responses: {
          '204': { description: 'Deleted.' },
          '400': responseRef('BadRequest'),
          '404': responseRef('NotFound'),
        },
      }),
    },
    ...webhookActionPaths(),
  };
}

/** Deliveries, replay and secret rotation of one endpoint. */
function webhookActionPaths(): Record<string, PathItemObject> {
  return {
    '/webhooks/{id}/deliveries': {
      parameters: [ID_PARAMETER],
      get: operation(
        'listWebhookDeliveries',
        'List an endpoint’s deliveries',
        'Newest first, each with its attempts (kept 7 days).',
        {
          parameters: PAGING,
          responses: {
            '200': ok('A page of deliveries.', page('WebhookDelivery')),
            '400': responseRef('BadRequest'),
            '404': responseRef('NotFound'),
          },
        },
      ),
    },
    '/webhooks/{id}/replay': {
      parameters: [ID_PARAMETER],
      post: operation(
        'replayWebhook',
        'Send changes again',
        'Everything after the cursor `after` that the log still holds, in order per resource, with the same `webhook-id`s as before.',
        {
          requestBody: jsonBody(
            {
              type: 'object',
              required: ['after'],
              additionalProperties: false,
              properties: { after: { type: 'string', pattern: '^\\d{1,10}$' } },
            },
            'Where to start again.',
          ),
          responses: {
            '200': ok('Replay started.', {
              type: 'object',
              properties: { meta: { type: 'object', properties: { after: { type: 'string' } } } },
            }),
            '400': responseRef('BadRequestBody'),
            '404': responseRef('NotFound'),
            '410': responseRef('CursorExpired'),
            '415': responseRef('UnsupportedMediaType'),
          },
        },
      ),
    },
    '/webhooks/{id}/rotate-secret': {
      parameters: [ID_PARAMETER],
      post: operation(
        'rotateWebhookSecret',
        'Make a new signing secret',
        'For 24 hours deliveries carry a signature with each secret, so that receivers can move to the new one.',
        {
          responses: {
            '200': ok('The endpoint, with its new secret.', one),
            '400': responseRef('BadRequest'),
            '404': responseRef('NotFound'),
          },
        },
      ),
    },
  };
}
