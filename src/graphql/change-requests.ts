/**
 * Change requests in GraphQL (src/change-requests), as over REST (../rest/change-requests.ts) and
 * with the same rules: `changeRequests`, `changeRequest(id)`, `createChangeRequest`,
 * `approveChangeRequest`, `rejectChangeRequest`, `withdrawChangeRequest`, and `preview` on a
 * request. The operations are an Atomic Operations document in REST's names, as JSON.
 */
import type { ChangeRequest, Decision } from '../change-requests/states.ts';
import { CHANGE_REQUEST_STATES } from '../change-requests/states.ts';
import { ProposalRefused } from '../change-requests/approval.ts';
import { DomainError } from '../data/errors.ts';
import { HttpError } from '../http/errors.ts';
import { type PreviewEntry, previewOf } from '../change-requests/views.ts';
import { visibleOperation } from '../data/change-request-entries.ts';
import { builder } from './builder.ts';
import { ResourceTypeEnum } from './changes.ts';
import type { GraphQLContext } from './context.ts';
import { boundedArguments } from './limits.ts';

const NOTE = 'Extension (not in the master-data spec):';

const ChangeRequestStateEnum = builder.enumType('ChangeRequestState', {
  values: Object.fromEntries(CHANGE_REQUEST_STATES.map((state) => [state.toUpperCase(), { value: state }])),
});

const DecisionRef = builder.objectRef<Decision>('ChangeRequestDecision').implement({
  description: 'Who approved, rejected or withdrew a change request, when, and why.',
  fields: (t) => ({
    decision: t.string({
      nullable: false,
      description: 'approved, rejected or withdrawn.',
      resolve: (d) => d.decision,
    }),
    by: t.string({ nullable: false, description: 'The client_id, or `cli user@host`.', resolve: (d) => d.by }),
    comment: t.string({ resolve: (d) => d.comment }),
    at: t.field({ type: 'DateTime', nullable: false, resolve: (d) => d.at }),
  }),
});

const PreviewRef = builder.objectRef<PreviewEntry>('ChangeRequestPreview').implement({
  description: 'A resource the request writes: its REST document now, and as applying the request would leave it.',
  fields: (t) => ({
    type: t.field({ type: ResourceTypeEnum, nullable: false, resolve: (p) => p.type }),
    id: t.int({ nullable: false, resolve: (p) => p.id }),
    now: t.field({ type: 'JSON', description: 'Null when it does not exist yet.', resolve: (p) => p.now }),
    after: t.field({ type: 'JSON', resolve: (p) => p.after }),
  }),
});

/** The errors the change requests and the atomic runner share with REST, as GraphQL says them. */
function asDomainError(error: unknown): unknown {
  if (error instanceof ProposalRefused) return asDomainError(error.failure.error);
  if (!(error instanceof HttpError)) return error;
  const kinds: Record<number, DomainError['kind']> = {
    400: 'bad_input',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    412: 'precondition_failed',
  };
  return new DomainError(kinds[error.status] ?? 'bad_input', error.message);
}

async function answered<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw asDomainError(error);
  }
}

const viewer = (context: GraphQLContext) => ({ clientId: context.auth.clientId, access: context.auth.access });

/** The preview, with the documents' links relative to the service's base (GraphQL has no request URL to start them with). */
async function preview(request: ChangeRequest, context: GraphQLContext): Promise<PreviewEntry[]> {
  return (await answered(() => previewOf(context.db, context.changeRequests, viewer(context), request.id, ''))).entries;
}

const ChangeRequestRef = builder.objectRef<ChangeRequest>('ChangeRequest').implement({
  description: `${NOTE} writes that wait for another client's approval, or for a date: an Atomic Operations document applied all or nothing.`,
  fields: (t) => ({
    id: t.int({ nullable: false, resolve: (r) => r.id }),
    state: t.field({ type: ChangeRequestStateEnum, nullable: false, resolve: (r) => r.state }),
    comment: t.string({ resolve: (r) => r.comment }),
    effectiveDate: t.field({
      type: 'DateTime',
      description: 'Null: applied once approved.',
      resolve: (r) => r.effectiveDate,
    }),
    author: t.string({ nullable: false, description: 'The client_id that made it.', resolve: (r) => r.author }),
    types: t.field({ type: [ResourceTypeEnum], nullable: false, resolve: (r) => r.types }),
    operations: t.field({
      type: 'JSON',
      nullable: false,
      description: 'Its `atomic:operations`, in REST’s names; only the fields this client’s role sees.',
      resolve: (r, _args, context) => r.operations.map((o) => visibleOperation(o, context.auth.access)),
    }),
    failure: t.string({ description: 'Why applying it failed (state FAILED).', resolve: (r) => r.failure }),
    decisions: t.field({ type: [DecisionRef], nullable: false, resolve: (r) => r.decisions }),
    changesCursor: t.string({
      description: 'Once applied: the change-log position of its last entry.',
      resolve: (r) => (r.position === null ? null : String(r.position)),
    }),
    version: t.int({ nullable: false, resolve: (r) => r.version }),
    createdDate: t.field({ type: 'DateTime', nullable: false, resolve: (r) => r.createdDate }),
    modifiedDate: t.field({ type: 'DateTime', nullable: false, resolve: (r) => r.modifiedDate }),
    settledDate: t.field({ type: 'DateTime', resolve: (r) => r.settledDate }),
    preview: t.field({
      type: [PreviewRef],
      nullable: false,
      description:
        'Each resource it writes, now and as applying it would leave it (read in a transaction rolled back).',
      resolve: (r, _args, context) => preview(r, context),
    }),
  }),
});

const CreateInput = builder.inputType('CreateChangeRequestInput', {
  fields: (t) => ({
    operations: t.field({ type: 'AtomicOperations', required: true }),
    comment: t.string(),
    effectiveDate: t.field({
      type: 'DateTime',
      description: 'When it takes effect once approved: an instant to come.',
    }),
  }),
});

builder.queryFields((t) => ({
  changeRequests: t.field({
    type: [ChangeRequestRef],
    nullable: false,
    description: `${NOTE} the change requests this client may see (its own, and those it may approve), newest first.`,
    args: {
      state: t.arg({ type: ChangeRequestStateEnum }),
      page: t.arg.int({ defaultValue: 1 }),
      first: t.arg.int({ defaultValue: 25 }),
    },
    extensions: boundedArguments({ first: { min: 1, max: 100 }, page: { min: 1, max: 1_000_000 } }),
    resolve: async (_root, args, context) =>
      (
        await context.changeRequests.list(viewer(context), {
          state: args.state ?? undefined,
          page: args.page ?? 1,
          perPage: args.first ?? 25,
        })
      ).requests,
  }),
  changeRequest: t.field({
    type: ChangeRequestRef,
    description: `${NOTE} one change request; null when this client may not see one of that id.`,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      try {
        return await context.changeRequests.get(viewer(context), args.id);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'not_found') return null;
        throw error;
      }
    },
  }),
}));

const decide = (decision: 'approve' | 'reject' | 'withdraw', description: string) =>
  builder.mutationField(`${decision}ChangeRequest`, (t) =>
    t.field({
      type: ChangeRequestRef,
      nullable: false,
      description: `${NOTE} ${description}`,
      args: { id: t.arg.int({ required: true }), comment: t.arg.string() },
      resolve: (_root, args, context) =>
        answered(() => context.changeRequests[decision](viewer(context), args.id, args.comment ?? undefined)),
    }),
  );

builder.mutationField('createChangeRequest', (t) =>
  t.field({
    type: ChangeRequestRef,
    nullable: false,
    description: `${NOTE} proposes writes for another client to approve. They are tried as this client's role would make them (and rolled back): one that could never apply is refused as the write itself.`,
    args: { input: t.arg({ type: CreateInput, required: true }) },
    resolve: (_root, { input }, context) =>
      answered(() =>
        context.changeRequests.propose(
          viewer(context),
          {
            operations: input.operations,
            comment: input.comment ?? undefined,
            effectiveDate: input.effectiveDate?.toISOString(),
          },
          context.writeCaller.beforeCommit,
        ),
      ),
  }),
);
decide(
  'approve',
  'approves a pending change request (another client than its author, whose role may approve what it writes and could make every change itself): applied at once, or scheduled for its effective date.',
);
decide('reject', 'rejects a pending or scheduled change request, as a client that may approve it.');
decide('withdraw', 'withdraws a pending or scheduled change request, as its author.');
