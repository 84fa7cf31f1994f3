/**
 * Change requests: writes that wait (docs/guides/changes-that-wait.md). A request holds a JSON:API
 * Atomic Operations document as `POST /operations` takes it, proposed by one API client and
 * applied, all of it or nothing, once another approves it: at once, or at its `effective_date`.
 *
 * - Proposing runs the operations in a transaction that is rolled back, under the author's role
 *   as a proposer (its rules that ask for approval allow them): a request that could never be
 *   applied is refused as `POST /operations` would refuse it, naming the operation.
 * - Approving needs another client than the author (four eyes) whose role may `approve` every type
 *   the request writes, on the rows it writes as they are before and after it, and could make
 *   every change itself: the operations run under the approver's role.
 * - Applying is one transaction: the operations, their change-log entries (the author as actor,
 *   the request's id on each) and the request's new state, under the version of the request that
 *   was read, so that two replicas applying it at once apply it once. A refusal at that moment
 *   (a version the operations expect, a unique value, a role that changed) leaves it `failed`
 *   with the reason, and writes nothing else.
 * - Who sees a request: its author, clients whose role may approve it, and admin. What they see
 *   of its operations is limited to the fields their role sees.
 */
import type { Database } from '../db/client.ts';
import { Sql, WRITE_INSTANT } from '../db/sql.ts';
import type { DataSource } from '../db/reads.ts';
import type { WriteTx } from '../db/transactions.ts';
import type { WriteCaller } from '../data/write-caller.ts';
import { AtomicWriter } from '../data/atomic-writes.ts';
import { actorName, announceWrites } from '../data/change-log.ts';
import { approves, type LoggedRequest, proposedEntry } from '../data/change-request-entries.ts';
import { atom } from '../data/forms.ts';
import { appendInsert } from '../data/rows.ts';
import { DomainError } from '../data/errors.ts';
import { MAX_BULK_ROWS } from '../data/bulk-writes.ts';
import { HttpError } from '../http/errors.ts';
import type { Access } from '../permissions/access.ts';
import type { RoleBook } from '../permissions/book.ts';
import { OperationFailure } from '../rest/atomic-errors.ts';
import { OperationRunner } from '../rest/atomic.ts';
import { readAsOf } from './future.ts';
import { comment, effectiveDate, invalid, namedResources, notFound, typesOf } from './input.ts';
import { approverRefused, failureText, ProposalRefused, requireApprovable } from './approval.ts';
import {
  type ChangeRequest,
  type ChangeRequestState,
  type Decider,
  type Decision,
  DecidedMeanwhile,
  type NewDecision,
  settleIn,
} from './states.ts';

/** What applying a request needs of it. */
export type Applicable = Pick<ChangeRequest, 'id' | 'version' | 'state' | 'authorId' | 'operations'>;

/**
 * A scheduled request as the scheduler claimed it (./scheduler.ts): `approverId` the API client
 * whose approval scheduled it, null for an operator, undefined when none did.
 */
export interface DueRequest extends Applicable {
  approverId: number | null | undefined;
  /** The role its approving API client has now; undefined for an operator, or a client that no longer exists. */
  approverRole?: string;
  effectiveDate: Date;
}

/** Why a scheduled request cannot be applied whatever it writes, if it cannot. */
function unapplicable(due: DueRequest): string | undefined {
  // Not left so by the API: a request scheduled by hand, or an approver removed since.
  if (due.approverId === undefined) return 'scheduled without an approval';
  if (due.approverId !== null && due.approverRole === undefined)
    return 'the API client that approved it no longer exists';
  return undefined;
}

/** The roles by name, as RoleBook.lookup gives them. */
export type RoleLookup = (name: string) => Access | undefined;

/**
 * Who asks: an API client (its row id) and its role's Access (none for admin); or an operator at
 * the command line (`npm run change-requests`), who may do what admin may, and is never an author.
 */
export type Viewer =
  | { clientId: number; access: Access | undefined }
  | { operator: string; clientId?: undefined; access?: undefined };

export interface Proposal {
  operations: unknown;
  comment?: unknown;
  effectiveDate?: unknown;
}

type Row = {
  id: number;
  operations: string;
  types: string;
  comment: string | null;
  effective_date: Date | null;
  author_id: number;
  author: { client_id: string };
  state: string;
  failure: string | null;
  settled_date: Date | null;
  version: number;
  created_date: Date;
  modified_date: Date;
  decisions: {
    api_client_id: number | null;
    decided_by: string;
    decision: string;
    comment: string | null;
    decided_date: Date;
  }[];
};

const WITH_DECISIONS = {
  author: { select: { client_id: true } },
  decisions: { orderBy: { id: 'asc' } },
} as const;

export class ChangeRequests {
  constructor(
    private readonly db: Database,
    private readonly roles: RoleBook,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Stores a pending request, once its operations were tried under the author's role (rolled
   * back), with its `created` entry in the change log. `beforeCommit` runs in the transaction that
   * stores it (an idempotency key's record).
   */
  async propose(
    viewer: Viewer,
    proposal: Proposal,
    beforeCommit?: WriteCaller['beforeCommit'],
  ): Promise<ChangeRequest> {
    const { operations } = proposal;
    if (!Array.isArray(operations) || operations.length === 0)
      throw invalid(
        'operations must be a list of at least one operation, as atomic:operations takes them',
        'operations',
      );
    if (operations.length > MAX_BULK_ROWS)
      throw invalid(`a request takes at most ${MAX_BULK_ROWS} operations (got ${operations.length})`, 'operations');
    const text = comment(proposal.comment, 'comment');
    const date = effectiveDate(proposal.effectiveDate, this.now());
    const types = typesOf(operations);
    if (viewer.clientId === undefined) throw invalid('a change request is made by an API client');
    const writer = new AtomicWriter(this.db, { apiClientId: viewer.clientId, access: viewer.access?.proposals() });
    await this.tried(writer, viewer.access?.proposals(), operations);
    const id = await this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ id: number }>(
        new Sql(tx.provider)
          .text(
            'INSERT INTO "change_requests" ("operations", "types", "comment", "effective_date", "author_id", "state", "created_date", "modified_date") VALUES (',
          )
          .value(JSON.stringify(operations))
          .text(', ')
          .value(JSON.stringify(types))
          .text(', ')
          .value(text)
          .text(', ')
          .value(date)
          .text(', ')
          .value(viewer.clientId)
          .text(`, 'pending', `)
          .value(WRITE_INSTANT)
          .text(', ')
          .value(WRITE_INSTANT)
          .text(') RETURNING "id"'),
      );
      const id = Number(row!.id);
      const author = await actorName(this.db, tx, viewer.clientId);
      const logged: LoggedRequest = {
        state: 'pending',
        comment: text,
        effective_date: date && atom(date),
        author,
        types,
        operations,
      };
      await tx.execute(appendInsert(new Sql(tx.provider), 'changes', [proposedEntry(id, logged)]));
      await beforeCommit?.(tx);
      return id;
    });
    await announceWrites(this.db, [viewer.clientId]);
    return (await this.read(id))!;
  }

  /** The operations run in a transaction that is rolled back; ProposalRefused naming the first refused. */
  private async tried(writer: AtomicWriter, access: Access | undefined, operations: readonly unknown[]) {
    try {
      await writer.rolledBack(() => new OperationRunner({ writer, access }).all(operations));
    } catch (error) {
      if (error instanceof OperationFailure) throw new ProposalRefused(error, operations);
      throw error;
    }
  }

  /** The requests `viewer` may see, newest first; `state` narrows them. */
  async list(
    viewer: Viewer,
    { state, page, perPage }: { state?: ChangeRequestState; page: number; perPage: number },
  ): Promise<{ requests: ChangeRequest[]; total: number }> {
    const rows = (await this.db.prisma.changeRequest.findMany({
      where: state ? { state } : {},
      orderBy: { id: 'desc' },
      include: WITH_DECISIONS,
    })) as Row[];
    const visible = rows.filter((row) => this.sees(viewer, row.author_id, JSON.parse(row.types) as string[]));
    const shown = visible.slice((page - 1) * perPage, page * perPage);
    return { requests: await this.withDetails(shown), total: visible.length };
  }

  /** One request, if `viewer` may see it (404 otherwise, as if it did not exist). */
  async get(viewer: Viewer, id: number): Promise<ChangeRequest> {
    const request = await this.read(id);
    if (!request || !this.sees(viewer, request.authorId, request.types)) throw notFound(id);
    return request;
  }

  private sees(viewer: Viewer, authorId: number, types: readonly string[]): boolean {
    const { access } = viewer;
    return !access || viewer.clientId === authorId || approves(access, types);
  }

  private async read(id: number): Promise<ChangeRequest | undefined> {
    const row = (await this.db.prisma.changeRequest.findUnique({ where: { id }, include: WITH_DECISIONS })) as
      | Row
      | undefined
      | null;
    return row ? (await this.withDetails([row]))[0] : undefined;
  }

  private async withDetails(rows: readonly Row[]): Promise<ChangeRequest[]> {
    const applied = rows.filter((row) => row.state === 'applied').map((row) => row.id);
    const positions = new Map<number, number>();
    if (applied.length > 0) {
      const sql = new Sql(this.db.provider)
        .text('SELECT "change_request_id" AS "id", MAX("seq") AS "seq" FROM "changes" WHERE "change_request_id"')
        .in(applied)
        .text(' GROUP BY "change_request_id"');
      for (const row of await this.db.primary.query<{ id: number; seq: unknown }>(sql))
        positions.set(Number(row.id), Number(row.seq));
    }
    return rows.map((row) => ({
      id: row.id,
      operations: JSON.parse(row.operations) as unknown[],
      types: JSON.parse(row.types) as string[],
      comment: row.comment,
      effectiveDate: row.effective_date,
      authorId: row.author_id,
      author: row.author.client_id,
      state: row.state as ChangeRequestState,
      failure: row.failure,
      settledDate: row.settled_date,
      version: row.version,
      createdDate: row.created_date,
      modifiedDate: row.modified_date,
      decisions: row.decisions.map((d) => ({
        decision: d.decision as Decision['decision'],
        by: d.decided_by,
        clientId: d.api_client_id,
        comment: d.comment,
        at: d.decided_date,
      })),
      position: positions.get(row.id) ?? null,
    }));
  }

  /**
   * Approves a pending request: applied at once (or `failed`, with the reason), or `scheduled`
   * when its effective date is still to come. 403 when `viewer` is its author, may not approve
   * what it writes, or could not make every change itself.
   */
  async approve(viewer: Viewer, id: number, note: unknown): Promise<ChangeRequest> {
    const request = await this.get(viewer, id);
    const text = comment(note, 'comment');
    this.requireState(request, ['pending'], 'approved');
    if (viewer.clientId === request.authorId)
      throw new DomainError('forbidden', `change request ${id} was made by this client: another must approve it`);
    const refused = viewer.access && request.types.find((type) => !viewer.access!.mayApprove(type));
    if (refused)
      throw new DomainError('forbidden', `the role ${viewer.access!.name} may not approve changes to ${refused}`);
    const decision: NewDecision = { ...(await this.decider(viewer)), decision: 'approved', comment: text };
    if (request.effectiveDate && request.effectiveDate.getTime() > this.now().getTime()) {
      // Applied later: what the approver's role allows is checked now, and again then.
      await this.requireApprover(request, viewer.access);
      await this.settle(request, 'scheduled', decision);
      return (await this.read(id))!;
    }
    await this.apply(request, viewer.access, decision);
    return (await this.read(id))!;
  }

  async reject(viewer: Viewer, id: number, note: unknown): Promise<ChangeRequest> {
    const request = await this.get(viewer, id);
    const text = comment(note, 'comment');
    this.requireState(request, ['pending', 'scheduled'], 'rejected');
    if (viewer.clientId === request.authorId)
      throw new DomainError(
        'forbidden',
        `change request ${id} was made by this client: it can withdraw it, not reject it`,
      );
    const refused = viewer.access && request.types.find((type) => !viewer.access!.mayApprove(type));
    if (refused)
      throw new DomainError('forbidden', `the role ${viewer.access!.name} may not decide on changes to ${refused}`);
    await this.settle(request, 'rejected', { ...(await this.decider(viewer)), decision: 'rejected', comment: text });
    return (await this.read(id))!;
  }

  async withdraw(viewer: Viewer, id: number, note: unknown): Promise<ChangeRequest> {
    const request = await this.get(viewer, id);
    const text = comment(note, 'comment');
    if (viewer.clientId !== request.authorId)
      throw new DomainError('forbidden', `only the author of change request ${id} can withdraw it`);
    this.requireState(request, ['pending', 'scheduled'], 'withdrawn');
    await this.settle(request, 'withdrawn', { ...(await this.decider(viewer)), decision: 'withdrawn', comment: text });
    return (await this.read(id))!;
  }

  private requireState(request: ChangeRequest, states: readonly ChangeRequestState[], becoming: string): void {
    if (!states.includes(request.state))
      throw new DomainError(
        'conflict',
        `change request ${request.id} is ${request.state}: only a ${states.join(' or ')} request can be ${becoming}`,
      );
  }

  /**
   * The operations under the approver's role in a transaction that is rolled back, with the rows
   * they write checked against its `approve` rules: 403 when its role is what refuses them. A
   * refusal that admin would meet too is the request's own, and is not the approver's to answer.
   */
  private async requireApprover(request: ChangeRequest, access: Access | undefined): Promise<void> {
    if (!access) return;
    const writer = new AtomicWriter(this.db, { apiClientId: request.authorId, access });
    try {
      await writer.rolledBack((tx) => this.runAsApprover(tx, writer, access, request.operations));
    } catch (error) {
      if (!(error instanceof OperationFailure || error instanceof DomainError || error instanceof HttpError))
        throw error;
      if (await this.appliesUnrestricted(request)) throw approverRefused(access, error);
    }
  }

  /** The operations, with the approver's `approve` rules checked on the rows they name before and on every row they wrote after. */
  private async runAsApprover(tx: WriteTx, writer: AtomicWriter, access: Access | undefined, operations: unknown[]) {
    if (access) await requireApprovable(tx, access, namedResources(operations));
    const runner = new OperationRunner({ writer, access });
    await runner.all(operations);
    if (access) await requireApprovable(tx, access, runner.touched);
  }

  /** Whether the operations would apply under admin now (rolled back). */
  private async appliesUnrestricted(request: Applicable): Promise<boolean> {
    const writer = new AtomicWriter(this.db, { apiClientId: request.authorId });
    try {
      await writer.rolledBack(() => new OperationRunner({ writer, access: undefined }).all(request.operations));
      return true;
    } catch (error) {
      if (error instanceof OperationFailure) return false;
      throw error;
    }
  }

  /**
   * Applies an approved request in one transaction under the approver's role: its writes, their
   * entries, and its state `applied` (with `decision`, when it is taken now). Refused, the
   * request is `failed` with the reason, unless the approver's role is what refused (403, the
   * request stays as it was).
   */
  private async apply(request: Applicable, access: Access | undefined, decision?: NewDecision): Promise<void> {
    const writer = this.applier(request, access, decision);
    try {
      await writer.inTransaction((tx) => this.runAsApprover(tx, writer, access, request.operations));
      // The request's own entry is numbered also when its operations changed nothing (the writer then announced none).
      await announceWrites(this.db, [decision?.clientId ?? undefined]);
    } catch (error) {
      if (!(error instanceof OperationFailure || error instanceof DomainError || error instanceof HttpError))
        throw error;
      if (error instanceof DecidedMeanwhile) throw error;
      // Approving now, the approver's role is what refused: the request stays pending.
      if (decision && access && (await this.appliesUnrestricted(request))) throw approverRefused(access, error);
      await this.settle(request, 'failed', decision, failureText(error));
    }
  }

  /**
   * Applies a scheduled request alone, in a transaction of its own, once its instant came
   * (./scheduler.ts, for one refused among others): under the role its approver has now; `failed`
   * with the reason when refused. Nothing when another replica settled it first.
   */
  async applyScheduled(due: DueRequest): Promise<void> {
    const refusal = unapplicable(due);
    try {
      if (refusal) await this.settle(due, 'failed', undefined, refusal);
      else
        await this.apply(due, due.approverRole === undefined ? undefined : await this.roles.access(due.approverRole));
    } catch (error) {
      if (!(error instanceof DecidedMeanwhile)) throw error;
    }
  }

  /**
   * Applies a scheduled request in the caller's transaction `tx` (./scheduler.ts, which holds its
   * row and commits at its instant): its writes, their entries and its state `applied`, under the
   * role its approver has now (`roles`: without a read). Throws what refuses it: the caller rolls
   * back, and applies it alone.
   */
  async applyIn(tx: WriteTx, due: DueRequest, roles: RoleLookup): Promise<void> {
    const refusal = unapplicable(due);
    if (refusal) throw new DomainError('forbidden', refusal);
    const access = due.approverRole === undefined ? undefined : roles(due.approverRole);
    const writer = this.applier(due, access);
    await writer.inTransactionOf(tx, (tx) => this.runAsApprover(tx, writer, access, due.operations));
  }

  /** The writer of a request's operations as applied: its author the client, its id in the entries, its state `applied` last. */
  private applier(request: Applicable, access: Access | undefined, decision?: NewDecision): AtomicWriter {
    return new AtomicWriter(this.db, {
      apiClientId: request.authorId,
      access,
      changeRequestId: request.id,
      beforeCommit: async (tx) =>
        settleIn(tx, request, 'applied', { actor: await this.actorOf(tx, request, decision), decision }),
    });
  }

  /**
   * A request's new state, with a decision, in a transaction of its own (nothing else written but
   * its entry in the change log, announced once committed).
   */
  private async settle(
    request: Applicable,
    state: ChangeRequestState,
    decision?: NewDecision,
    failure: string | null = null,
  ): Promise<void> {
    await this.db.transaction(async (tx) =>
      settleIn(tx, request, state, { actor: await this.actorOf(tx, request, decision), failure, decision }),
    );
    await announceWrites(this.db, [decision?.clientId ?? undefined]);
  }

  /** Who the change log names for a request's new state: the decider, or its author when none decides now (its date came). */
  private async actorOf(tx: WriteTx, request: Applicable, decision: NewDecision | undefined): Promise<string> {
    return decision ? decision.by : actorName(this.db, tx, request.authorId);
  }

  /**
   * What applying the request would write: each resource it writes as it is now and as it would
   * be after, read with `read` inside a transaction that is rolled back.
   */
  async preview<T>(
    viewer: Viewer,
    id: number,
    read: (source: WriteTx, touched: readonly { type: string; id: number }[]) => Promise<T>,
  ): Promise<{ request: ChangeRequest; after: T }> {
    const request = await this.get(viewer, id);
    const writer = new AtomicWriter(this.db, { apiClientId: request.authorId });
    try {
      const after = await writer.rolledBack(async (tx) => {
        const runner = new OperationRunner({ writer, access: undefined });
        await runner.all(request.operations);
        return read(tx, runner.touched);
      });
      return { request, after };
    } catch (error) {
      if (error instanceof OperationFailure) throw new ProposalRefused(error, request.operations);
      throw error;
    }
  }

  /** Who takes a decision, as it is recorded. */
  private async decider(viewer: Viewer): Promise<Decider> {
    if (viewer.clientId === undefined) return { clientId: null, by: `cli ${viewer.operator}` };
    return { clientId: viewer.clientId, by: await actorName(this.db, this.db.primary, viewer.clientId) };
  }

  /** Reads the hub as of `at` (both APIs' `asOf`): ./future.ts. */
  readAsOf<T>(at: Date, work: (source: DataSource) => Promise<T>): Promise<T> {
    return readAsOf(this.db, this.now(), at, work);
  }

  /** The roles as this replica keeps them, for applyIn: looked up without a read. */
  roleLookup(): Promise<RoleLookup> {
    return this.roles.lookup();
  }
}
