/**
 * Webhook endpoints in GraphQL, as over REST (../rest/webhooks.ts) and with the same rules
 * (../webhooks/endpoints.ts): `webhooks`, `webhook(id)`, `createWebhook`, `updateWebhook`,
 * `deleteWebhook`, `replayWebhook`, `rotateWebhookSecret`, and `Webhook.deliveries`. Each
 * client sees and manages only its own, with the `write` scope (mutations need it anyway;
 * the queries ask for it too). `where` is given as over REST: per type, the filter language in
 * the spec's names.
 */
import { DomainError } from '../data/errors.ts';
import type { EndpointView } from '../webhooks/endpoints.ts';
import { messageId } from '../webhooks/endpoints.ts';
import { builder } from './builder.ts';
import { ChangeOpEnum, cursorArgument, ResourceTypeEnum } from './changes.ts';
import type { GraphQLContext } from './context.ts';
import { boundedArguments } from './limits.ts';

const NOTE = 'Extension (not in the master-data spec):';
const MAX_DELIVERIES = 100;

/** The client's id, when its token has the write scope. */
function owner(context: GraphQLContext): number {
  if (!context.auth.scopes.includes('write')) throw new DomainError('forbidden', 'webhooks need the write scope');
  return context.auth.clientId;
}

const WebhookStatusEnum = builder.enumType('WebhookStatus', {
  values: {
    HEALTHY: { value: 'healthy', description: 'Its last attempt succeeded, or none failed.' },
    FAILING: { value: 'failing', description: 'Attempts fail; they are tried again.' },
    DISABLED: {
      value: 'disabled',
      description: 'No attempt succeeded for days: not called until `isActive` is set again.',
    },
  } as Record<string, { value: EndpointView['status']; description: string }>,
});

const DeliveryStatusEnum = builder.enumType('WebhookDeliveryStatus', {
  values: {
    DELIVERED: { value: 'delivered', description: 'Answered 2xx.' },
    RETRYING: { value: 'retrying', description: 'Failed so far; tried again at `nextAttemptDate`.' },
    DEAD: { value: 'dead', description: 'Given up after the retry period: `replayWebhook` sends it again.' },
  },
});

interface Attempt {
  attempted_date: Date;
  status_code: number | null;
  error: string | null;
  latency_ms: number;
  response: string | null;
}

const AttemptRef = builder.objectRef<Attempt>('WebhookAttempt').implement({
  description: 'One call of a delivery.',
  fields: (t) => ({
    attemptedDate: t.field({ type: 'DateTime', nullable: false, resolve: (a) => a.attempted_date }),
    statusCode: t.int({ description: 'The answer’s status; null when none came.', resolve: (a) => a.status_code }),
    error: t.string({ description: 'Why no answer came.', resolve: (a) => a.error }),
    latencyMs: t.int({ nullable: false, resolve: (a) => a.latency_ms }),
    response: t.string({ description: 'The first 1 KB of the answer.', resolve: (a) => a.response }),
  }),
});

type Delivery = Awaited<ReturnType<GraphQLContext['webhooks']['deliveries']>>['deliveries'][number];

const DeliveryRef = builder.objectRef<Delivery>('WebhookDelivery').implement({
  description: 'One change-log entry sent to an endpoint, with its attempts.',
  fields: (t) => ({
    id: t.string({
      nullable: false,
      description: 'Its `webhook-id` header.',
      resolve: (d) => messageId(d.webhook_id, d.seq),
    }),
    change: t.string({ nullable: false, description: 'The entry’s cursor.', resolve: (d) => String(d.seq) }),
    eventType: t.string({ nullable: false, description: 'e.g. `products.updated`.', resolve: (d) => d.event_type }),
    resourceType: t.field({ type: ResourceTypeEnum, nullable: false, resolve: (d) => d.resource_type }),
    resourceId: t.int({ nullable: false, resolve: (d) => d.resource_id }),
    status: t.field({ type: DeliveryStatusEnum, nullable: false, resolve: (d) => d.status as never }),
    attempts: t.int({ nullable: false, resolve: (d) => d.attempts }),
    nextAttemptDate: t.field({ type: 'DateTime', resolve: (d) => d.next_attempt_date }),
    createdDate: t.field({ type: 'DateTime', nullable: false, resolve: (d) => d.created_date }),
    modifiedDate: t.field({ type: 'DateTime', nullable: false, resolve: (d) => d.modified_date }),
    attemptLog: t.field({ type: [AttemptRef], nullable: false, resolve: (d) => d.attempt_log }),
  }),
});

const WebhookRef = builder.objectRef<EndpointView>('Webhook').implement({
  description: `${NOTE} an endpoint called with every change its owner's role sees and its filters let through, signed as the Standard Webhooks specification says.`,
  fields: (t) => ({
    id: t.int({ nullable: false, resolve: (w) => w.id }),
    url: t.string({ nullable: false, resolve: (w) => w.url }),
    types: t.field({ type: [ResourceTypeEnum], nullable: false, description: 'Empty: all.', resolve: (w) => w.types }),
    ops: t.field({ type: [ChangeOpEnum], nullable: false, description: 'Empty: all.', resolve: (w) => w.ops }),
    where: t.field({
      type: 'JSON',
      description:
        'Per resource type (REST name), a filter in the spec’s names on the resource after the change (before it, for deletions).',
      resolve: (w) => w.where,
    }),
    description: t.string({ resolve: (w) => w.description }),
    isActive: t.boolean({ nullable: false, resolve: (w) => w.is_active }),
    status: t.field({ type: WebhookStatusEnum, nullable: false, resolve: (w) => w.status }),
    createdDate: t.field({ type: 'DateTime', nullable: false, resolve: (w) => w.created_date }),
    modifiedDate: t.field({ type: 'DateTime', nullable: false, resolve: (w) => w.modified_date }),
    deliveries: t.field({
      type: [DeliveryRef],
      nullable: false,
      description: `Newest first, \`first\` of them (at most ${MAX_DELIVERIES}) from \`page\`.`,
      args: { page: t.arg.int({ defaultValue: 1 }), first: t.arg.int({ defaultValue: 25 }) },
      complexity: (args) => ({ field: 1, multiplier: (args.first as number | null) ?? 25 }),
      extensions: boundedArguments({ first: { min: 1, max: MAX_DELIVERIES }, page: { min: 1, max: 1_000_000 } }),
      resolve: async (w, args, context) =>
        (await context.webhooks.deliveries(owner(context), w.id, args.page ?? 1, args.first ?? 25)).deliveries,
    }),
  }),
});

const WithSecretRef = builder.objectRef<EndpointView>('WebhookWithSecret').implement({
  description: 'An endpoint and its new signing secret, shown only in this answer.',
  fields: (t) => ({
    webhook: t.field({ type: WebhookRef, nullable: false, resolve: (w) => w }),
    secret: t.string({ nullable: false, description: '`whsec_` and the key, in base64.', resolve: (w) => w.secret! }),
  }),
});

const inputFields = (required: boolean) => (t: any) => ({
  url: t.string({ required }),
  types: t.field({ type: [ResourceTypeEnum] }),
  ops: t.field({ type: [ChangeOpEnum] }),
  where: t.field({ type: 'JSON' }),
  description: t.string(),
  isActive: t.boolean(),
});
const CreateInput = builder.inputType('CreateWebhookInput', { fields: inputFields(true) });
const UpdateInput = builder.inputType('UpdateWebhookInput', { fields: inputFields(false) });

/** An input in the endpoints' (REST's) names; a field left out or null is not given (null clears where and description). */
function specInput(input: Record<string, unknown>): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (value === null && key !== 'where' && key !== 'description') continue;
    spec[key === 'isActive' ? 'is_active' : key] = value;
  }
  return spec;
}

builder.queryFields((t) => ({
  webhooks: t.field({
    type: [WebhookRef],
    nullable: false,
    description: `${NOTE} this client's webhook endpoints (at most 100).`,
    resolve: async (_root, _args, context) => (await context.webhooks.list(owner(context), 1, 100)).views,
  }),
  webhook: t.field({
    type: WebhookRef,
    description: `${NOTE} one of this client's webhook endpoints; null when it has none of that id.`,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      try {
        return await context.webhooks.get(owner(context), args.id);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'not_found') return null;
        throw error;
      }
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WithSecretRef,
    nullable: false,
    description: `${NOTE} a webhook endpoint of this client, told of changes from now on. Its secret is in this answer only.`,
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_root, args, context) =>
      context.webhooks.create(owner(context), context.auth.access, specInput(args.input as Record<string, unknown>)),
  }),
  updateWebhook: t.field({
    type: WebhookRef,
    nullable: false,
    description: `${NOTE} changes an endpoint; \`isActive: true\` enables a disabled one again, from where it stopped.`,
    args: { id: t.arg.int({ required: true }), input: t.arg({ type: UpdateInput, required: true }) },
    resolve: (_root, args, context) =>
      context.webhooks.update(
        owner(context),
        context.auth.access,
        args.id,
        specInput(args.input as Record<string, unknown>),
      ),
  }),
  deleteWebhook: t.field({
    type: 'Int',
    nullable: false,
    description: `${NOTE} deletes an endpoint, its deliveries and attempts; answers its id.`,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await context.webhooks.remove(owner(context), args.id);
      return args.id;
    },
  }),
  replayWebhook: t.field({
    type: WebhookRef,
    nullable: false,
    description: `${NOTE} sends again everything after the cursor \`after\` that the log still holds, in order (CURSOR_EXPIRED when it no longer does).`,
    args: { id: t.arg.int({ required: true }), after: t.arg.string({ required: true }) },
    resolve: async (_root, args, context) => {
      await context.webhooks.replay(owner(context), args.id, cursorArgument(args.after, 'after')!);
      return context.webhooks.get(owner(context), args.id);
    },
  }),
  rotateWebhookSecret: t.field({
    type: WithSecretRef,
    nullable: false,
    description: `${NOTE} a new signing secret; for 24 hours deliveries are signed with the old one too.`,
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, args, context) => context.webhooks.rotateSecret(owner(context), args.id),
  }),
}));
