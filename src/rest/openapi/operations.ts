/**
 * The operations of the REST API's OpenAPI document, one per route of ../routes.ts: what each
 * takes and answers, by kind of route (collection, resource, relationship, related, structures).
 */
import type {
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  ResponsesObject,
  SchemaObject,
} from 'openapi3-ts/oas31';
import { requiredScope } from '../../auth/bearer.ts';
import { pascal, singular, typeName } from '../../resources/names.ts';
import { resourceByType } from '../../resources/registry.ts';
import type { Relationship, ResourceDefinition } from '../../resources/types.ts';
import type { RestRoute } from '../routes.ts';
import { jsonBody, LOCATION, names, ok, one, responseRef, schemaRef, type Schema } from './common.ts';
import { addConditionalParameters, filterParameter, includeParameter } from './parameters.ts';
import { withValidators } from './responses.ts';
import { identifierInput, included, relationshipData, toOneInput } from './schemas.ts';

/** The relationship document `{links, data, included?}`. */
function relationshipDocument(rel: Relationship, withIncluded: 'never' | 'optional' | 'always'): SchemaObject {
  return {
    type: 'object',
    required: ['links', 'data', ...(withIncluded === 'always' ? ['included'] : [])],
    properties: {
      links: schemaRef('RelationshipLinks'),
      data: relationshipData(rel),
      ...(withIncluded === 'never'
        ? {}
        : {
            included: included(
              [rel.target],
              withIncluded === 'optional' ? 'present when `include` is given' : 'the items as they now are',
            ),
          }),
    },
  };
}

/** What a route is about: its type, and the relationship its path names. */
interface RouteContext {
  route: RestRoute;
  resource: ResourceDefinition;
  n: ReturnType<typeof names>;
  rel?: Relationship;
}

/** What one operation says beyond its scope and parameters. */
interface OperationParts {
  notes: string[];
  requestBody?: RequestBodyObject;
  success?: [status: string, response: ResponseObject];
  /** The 409 response it refers to (its `...OnPost` form for a POST). */
  conflict: string;
  /** Whether it can answer 404 (everything but LIST). */
  notFound: boolean;
}

function parts(given: Partial<OperationParts>): OperationParts {
  return { notes: [], conflict: 'TypeMismatch', notFound: true, ...given };
}

/** ADD and UPDATE: 409 `conflict` where the type has a unique attribute. */
function uniqueConflict(resource: ResourceDefinition): string {
  return Object.values(resource.attributes).some((a) => a.unique) ? 'Conflict' : 'TypeMismatch';
}

function listParts({ route, n }: RouteContext): OperationParts {
  return parts({
    notes: [`Ordered by \`id\`. \`page\` past the last: 200 with empty \`data\`. Unknown query parameters: 400.`],
    success: ['200', ok(`A page of ${route.type}.`, schemaRef(n.list))],
    notFound: false,
  });
}

function getParts({ route, n }: RouteContext): OperationParts {
  return parts({ success: ['200', ok(`The ${singular(route.type).replace(/_/g, ' ')}.`, schemaRef(n.document))] });
}

function addParts({ resource, n }: RouteContext): OperationParts {
  return parts({
    notes: ['`modified_date` and `created_date` are set by the server. Relationship targets must exist (else 404).'],
    requestBody: jsonBody(
      { type: 'object', required: ['data'], properties: { data: schemaRef(n.create) } },
      `{"data": ${n.create}}`,
    ),
    success: ['201', ok(`Added; \`Location\` is its URL.`, schemaRef(n.document), LOCATION)],
    conflict: uniqueConflict(resource),
  });
}

function updateParts({ resource, n }: RouteContext): OperationParts {
  return parts({
    notes: [
      'Partial: only the attributes and relationships given change; localized text is merged key by key. ' +
        '`modified_date` is set by the server; dates in the body are ignored, so a document read with GET can be sent back unchanged.',
    ],
    requestBody: jsonBody(
      { type: 'object', required: ['data'], properties: { data: schemaRef(n.update) } },
      `{"data": ${n.update}}`,
    ),
    success: ['200', ok('The resource as it now is.', schemaRef(n.document))],
    conflict: uniqueConflict(resource),
  });
}

function relationshipGetParts({ rel }: RouteContext): OperationParts {
  return parts({ success: ['200', ok('The relationship.', relationshipDocument(rel!, 'optional'))] });
}

function relationshipSetParts({ rel }: RouteContext): OperationParts {
  const removable = rel!.removable;
  return parts({
    notes: [
      removable
        ? '`{"data": null}` or `{"data": {"id": null}}` removes the link.'
        : 'The link cannot be removed: `data: null` is 400 `invalid_relationship`.',
    ],
    requestBody: jsonBody(
      { type: 'object', required: ['data'], properties: { data: toOneInput(rel!, removable ? 'remove' : 'refused') } },
      'The new target.',
    ),
    success: ['200', ok('The relationship as it now is.', relationshipDocument(rel!, 'never'))],
  });
}

function relatedGetParts({ rel }: RouteContext): OperationParts {
  const target = names(rel!.target);
  const data: Schema =
    rel!.cardinality === 'to-many'
      ? { type: 'array', items: schemaRef(target.resource) }
      : rel!.required
        ? schemaRef(target.resource)
        : { oneOf: [schemaRef(target.resource), { type: 'null' }] };
  // What this route's `include` takes (the relationship's relatedIncludes), not the target's GET includes.
  const targetResource = resourceByType(rel!.target)!;
  const targets = [...new Set((rel!.relatedIncludes ?? []).map((name) => targetResource.relationships[name]!.target))];
  return parts({
    success: [
      '200',
      ok(`The related ${rel!.target}.`, {
        type: 'object',
        required: ['links', 'data'],
        properties: {
          links: schemaRef('SelfLink'),
          data,
          ...(targets.length > 0 ? { included: included(targets, 'present when `include` is given') } : {}),
        },
      }),
    ],
  });
}

/** REL-ADD, REL-REPLACE and REL-REMOVE of a to-many relationship; a structure's items are replaced as full objects. */
function toManyWriteParts({ route, rel }: RouteContext): OperationParts {
  const children = rel!.storage.kind === 'children';
  const notes: string[] = [];
  if (route.operation === 'rel-add') notes.push('Identifiers already present are kept once.');
  if (route.operation === 'rel-remove')
    notes.push(children ? 'The items named are deleted.' : 'Identifiers not present are no error.');
  const success: OperationParts['success'] = [
    '200',
    ok('The relationship as it now is (the full set).', relationshipDocument(rel!, children ? 'always' : 'never')),
  ];
  if (route.operation === 'rel-replace' && children) {
    notes.push(
      'Full item objects that replace all items: the old items are deleted. A cycle in the bill of material is 409 `bom_cycle`.',
    );
    const items = { type: 'array', items: schemaRef(names(rel!.target).create) } satisfies SchemaObject;
    const requestBody = jsonBody(
      { type: 'object', required: ['data'], properties: { data: items } },
      'The new items, as full objects.',
    );
    return parts({ notes, requestBody, success, conflict: 'ItemsConflict' });
  }
  const identifiers = {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: identifierInput(rel!.target) } },
  } satisfies SchemaObject;
  return parts({ notes, requestBody: jsonBody(identifiers, 'Resource identifiers.'), success });
}

function addStructureParts(): OperationParts {
  const structure = names('product_structures');
  return parts({
    notes: [
      'The only way to add a product structure. Its items come as full objects in `relationships.items.data`. ' +
        'A second structure for the same product is 409 `conflict`; a cycle in the bill of material 409 `bom_cycle`.',
    ],
    requestBody: jsonBody(
      { type: 'object', required: ['data'], properties: { data: schemaRef(structure.create) } },
      '{"data": ProductStructureCreate}',
    ),
    success: [
      '201',
      ok(
        'Added; `Location` is its URL.',
        {
          type: 'object',
          required: ['data', 'included'],
          properties: {
            data: schemaRef(structure.resource),
            included: included(['product_structure_items'], 'its items'),
          },
        },
        LOCATION,
      ),
    ],
    conflict: 'StructureConflict',
  });
}

function addItemsParts({ rel }: RouteContext): OperationParts {
  return parts({
    notes: ['The items are added; existing ones are kept. A cycle in the bill of material is 409 `bom_cycle`.'],
    requestBody: jsonBody(
      {
        type: 'object',
        required: ['data'],
        properties: { data: { type: 'array', items: schemaRef(names(rel!.target).create) } },
      },
      'The new items, as full objects.',
    ),
    success: [
      '201',
      ok('All items of the structure, as identifiers and in `included`.', relationshipDocument(rel!, 'always')),
    ],
    conflict: 'ItemsConflict',
  });
}

const PARTS: Record<RestRoute['operation'], (context: RouteContext) => OperationParts> = {
  list: listParts,
  get: getParts,
  add: addParts,
  update: updateParts,
  'rel-get': relationshipGetParts,
  'rel-set': relationshipSetParts,
  'related-get': relatedGetParts,
  'rel-add': toManyWriteParts,
  'rel-replace': toManyWriteParts,
  'rel-remove': toManyWriteParts,
  'add-structure': addStructureParts,
  'add-items': addItemsParts,
};

/** The summary and operationId of a route: `Get a customer`, `getCustomer`. */
function summaryOf(route: RestRoute): [summary: string, operationId: string] {
  const relName = route.relationship ?? '';
  const R = relName ? pascal(relName) : '';
  const N = typeName(route.type);
  const a = one(route.type);
  switch (route.operation) {
    case 'list':
      return [`List ${route.type.replace(/_/g, ' ')}`, `list${pascal(route.type)}`];
    case 'add':
      return [`Add ${a}`, `add${N}`];
    case 'get':
      return [`Get ${a}`, `get${N}`];
    case 'update':
      return route.method === 'PUT'
        ? [`Update ${a} (PUT, an alias of PATCH)`, `update${N}Put`]
        : [`Update ${a}`, `update${N}`];
    case 'rel-get':
      return [`Get the ${relName} relationship of ${a}`, `get${N}${R}Relationship`];
    case 'rel-set':
      return [`Set the ${relName} relationship of ${a}`, `set${N}${R}Relationship`];
    case 'related-get':
      return [`Get the ${relName} of ${a}`, `get${N}Related${R}`];
    case 'rel-add':
      return [`Add to the ${relName} relationship of ${a}`, `add${N}${R}Relationship`];
    case 'rel-replace':
      return [`Replace the ${relName} relationship of ${a}`, `replace${N}${R}Relationship`];
    case 'rel-remove':
      return [`Remove from the ${relName} relationship of ${a}`, `remove${N}${R}Relationship`];
    case 'add-structure':
      return ['Add the product structure of a product', `add${N}ProductStructure`];
    case 'add-items':
      return ['Add items to a product structure', `add${N}Items`];
  }
}

/** The answers of an operation: its success, then every error it can give, by reference. */
function responsesOf(route: RestRoute, reading: boolean, described: OperationParts): ResponsesObject {
  const { success, requestBody, conflict, notFound } = described;
  const posting = route.method === 'POST' && !route.refused;
  const responses: ResponsesObject = {};
  if (success) responses[success[0]] = withValidators(route, success[1]);
  // A role whose rule asks for approval: the write waits as a change request (../change-requests.ts).
  if (success && !reading && route.operation !== 'add-structure')
    responses['202'] = ok(
      'Not written yet: this client’s role makes this write only with another client’s approval. The change request it is now, pending; `Location` is its URL.',
      { type: 'object', required: ['data'], properties: { data: schemaRef('ChangeRequest') } },
      LOCATION,
    );
  if (reading) responses['304'] = responseRef('NotModified');
  responses['400'] = responseRef(route.refused ? 'BadToken' : requestBody ? 'BadRequestBody' : 'BadRequest');
  responses['401'] = responseRef('Unauthorized');
  responses['403'] = responseRef(reading ? 'ForbiddenScope' : 'Forbidden');
  if (!route.refused && notFound) responses['404'] = responseRef('NotFound');
  if (requestBody) {
    responses['409'] = responseRef(posting ? `${conflict}OnPost` : conflict);
    if (!route.refused) responses['412'] = responseRef('PreconditionFailed');
    responses['413'] = responseRef('PayloadTooLarge');
    responses['415'] = responseRef('UnsupportedMediaType');
  }
  if (posting) responses['422'] = responseRef('IdempotencyKeyReused');
  if (!route.refused) responses['503'] = responseRef('ServiceUnavailable');
  return responses;
}

/** One route as an operation. */
export function operationOf(route: RestRoute): OperationObject {
  const resource = resourceByType(route.type)!;
  const rel = route.relationship ? resource.relationships[route.relationship] : undefined;
  const scope = requiredScope(route.method, route.path);
  const described = route.refused
    ? parts({ notes: [`**Always refused**: 403 \`forbidden\`. ${route.refused}.`] })
    : PARTS[route.operation]({ route, resource, n: names(route.type), rel });

  const parameters: (ParameterObject | ReferenceObject)[] = [];
  const include = includeParameter(route);
  if (include) parameters.push(include);
  if (route.operation === 'list') {
    parameters.push({ $ref: '#/components/parameters/page' }, { $ref: '#/components/parameters/per_page' });
    for (const [name, filter] of Object.entries(resource.filters)) parameters.push(filterParameter(name, filter));
  }
  if (described.success && !route.refused) addConditionalParameters(route, parameters);

  const [summary, operationId] = summaryOf(route);
  return {
    tags: [route.type],
    summary,
    operationId,
    description: [`Scope: \`${scope}\`.`, ...described.notes].join(' '),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(described.requestBody ? { requestBody: described.requestBody } : {}),
    responses: responsesOf(route, scope === 'read', described),
    ...(rel?.deprecated ? { deprecated: true } : {}),
  };
}
