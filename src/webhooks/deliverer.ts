/**
 * The deliverer of one endpoint, run by the replica that holds its lease (./deliveries.ts). It
 * reads the change log after the endpoint's cursor, as the owner's role sees it (the same views
 * as /changes), keeps the entries its types, ops and `where` let through, and sends each as one
 * signed call (./send.ts):
 *
 * - in log order per resource: a resource's next entry waits until the one before it was
 *   answered 2xx or dead-lettered; different resources go in parallel, at most `concurrency`
 *   calls at once;
 * - a failed attempt (not 2xx, a timeout, no connection) is tried again after an exponential
 *   backoff with jitter, until `retryForMs` after the first attempt, then dead-lettered;
 * - what happened is written by the replica's recorder (./recorder.ts) every 100 ms: the
 *   attempts, the deliveries, and the cursor, which moves to just before the oldest entry not
 *   yet done. A crash loses at most what was in flight and not yet written: those are sent
 *   again, with the same `webhook-id`, and nothing is skipped;
 * - an endpoint with no success for `disableAfterMs` is disabled.
 *
 * At the end of the log it takes new entries from the replica's live window (./live-window.ts),
 * which every deliverer shares, instead of a statement of its own each time the log grows.
 */
import { changeObject } from '../data/change-document.ts';
import { type ChangeEntry, changesAfter } from '../data/changes.ts';
import { DomainError } from '../data/errors.ts';
import { readableTypes, roleViews } from '../data/role-changes.ts';
import { followedTypes, shownTo } from '../data/change-request-entries.ts';
import type { Database } from '../db/client.ts';
import type { Access } from '../permissions/access.ts';
import { messageId, type Op, viewOf } from './endpoints.ts';
import type { LiveWindow } from './live-window.ts';
import type { Pacer } from './pacer.ts';
import type { DeliveryRecord, Recorded, Recorder, Records } from './recorder.ts';
import { type AttemptResult, Caller, type Message, sign, signingKey } from './send.ts';
import { backoff, type DeliveryPolicy, type Outcome } from './policy.ts';
import { EndpointFilter, UnseenWhere } from './where.ts';

/** Entries read per statement. */
const PAGE = 500;

export interface DelivererHooks {
  /** The owner's Access now (undefined: admin); asked before each read, so a changed role applies. */
  access: () => Promise<Access | undefined>;
  attempted: (outcome: Outcome) => void;
  error: (error: Error, what: string) => void;
}

type EndpointRow = Parameters<typeof viewOf>[0];

interface Pending {
  entry: ChangeEntry;
  key: string;
  attempts: number;
  firstAttemptAt?: number;
  /** When it may be tried (ms since the epoch). */
  dueAt: number;
  /** The last attempt's call: sent again as it is while its timestamp (a second) and keys hold. */
  message?: Message;
  signedWith?: readonly Buffer[];
}

interface Done {
  pending: Pending;
  result: AttemptResult;
  at: Date;
  status: 'delivered' | 'retrying' | 'dead';
}

/** Tried before: what the deliveries table says of entries after the cursor. */
interface Known {
  status: string;
  attempts: number;
  next: Date | null;
  created: Date;
}

/**
 * An entry's body, made once for every endpoint and attempt that gets the same entry object (the
 * live window's are shared by the endpoints of admin owners).
 */
const bodies = new WeakMap<ChangeEntry, Buffer>();

function bodyOf(entry: ChangeEntry): Buffer {
  let body = bodies.get(entry);
  if (body === undefined) {
    body = Buffer.from(
      JSON.stringify({
        type: `${entry.type}.${entry.op}`,
        timestamp: new Date(entry.at).toISOString(),
        data: changeObject(entry),
      }),
    );
    bodies.set(entry, body);
  }
  return body;
}

export interface DelivererParts {
  db: Database;
  recorder: Recorder;
  pacer: Pacer;
  window: LiveWindow;
  /** This deliverer's share of the entries held in memory (shareOf the endpoints delivered here). */
  share: () => number;
  policy: DeliveryPolicy;
  hooks: DelivererHooks;
}

export class Deliverer implements Recorded {
  private frontier: number;
  private readonly outstanding = new Map<number, Pending>();
  private readonly lines = new Map<string, Pending[]>();
  private readonly ready: Pending[] = [];
  private readonly done: Done[] = [];
  private readonly known = new Map<number, Known>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly caller: Caller;
  private readonly where: EndpointFilter;
  private readonly keys: { current: Buffer[]; both: Buffer[] };
  private inFlight = 0;
  /** The last pull stopped at the share: the next starts when half of it is done. */
  private full = false;
  /** A call waits for the pacer's next free permit. */
  private awaitingPermit = false;
  private pulling: Promise<void> | undefined;
  private pullAgain = false;
  /** Records a flush could not write: written with the next. */
  private unwritten: Records | undefined;
  private writtenHealth: string;
  private stopped = false;
  private failingSince: Date | null;
  private lastSuccess: Date | null = null;
  private disabled = false;
  private readonly db: Database;
  private readonly policy: DeliveryPolicy;
  private readonly hooks: DelivererHooks;

  constructor(
    private readonly endpoint: EndpointRow,
    /** The owner's role when it started: a deliverer is started again when it changes. */
    readonly role: string,
    private readonly parts: DelivererParts,
  ) {
    ({ db: this.db, policy: this.policy, hooks: this.hooks } = parts);
    this.frontier = endpoint.cursor;
    this.failingSince = endpoint.failing_since;
    this.writtenHealth = endpoint.status;
    this.caller = new Caller(new URL(endpoint.url), this.policy.targets, {
      connections: this.policy.concurrency,
      timeoutMs: this.policy.timeoutMs,
    });
    this.where = new EndpointFilter(viewOf(endpoint).where);
    const current = signingKey(endpoint.secret);
    this.keys = {
      current: [current],
      both: endpoint.previous_secret ? [current, signingKey(endpoint.previous_secret)] : [current],
    };
  }

  /** Where this deliverer has read the log to: the live window keeps nothing it no longer needs. */
  get position(): number {
    return this.frontier;
  }

  get id(): number {
    return this.endpoint.id;
  }

  get generation(): number {
    return this.endpoint.generation;
  }

  /** The oldest entry not yet delivered: its age is the endpoint's backlog (ms; 0 when none). */
  oldestWaitingMs(now = Date.now()): number {
    const first = this.outstanding.values().next();
    return first.done ? 0 : Math.max(0, now - Date.parse(first.value.entry.at));
  }

  async start(): Promise<void> {
    const rows = await this.db.prisma.webhookDelivery.findMany({
      where: { webhook_id: this.id, seq: { gt: this.endpoint.cursor } },
      select: { seq: true, status: true, attempts: true, next_attempt_date: true, created_date: true },
    });
    for (const r of rows)
      this.known.set(r.seq, {
        status: r.status,
        attempts: r.attempts,
        next: r.next_attempt_date,
        created: r.created_date,
      });
    this.wake();
  }

  /** New entries may be in the log. */
  wake(): void {
    if (this.stopped) return;
    if (this.pulling) {
      this.pullAgain = true;
      return;
    }
    this.pulling = this.pull()
      .catch((error: Error) => this.pullFailed(error))
      .finally(() => {
        this.pulling = undefined;
        if (this.pullAgain) {
          this.pullAgain = false;
          this.wake();
        }
      });
  }

  /**
   * Reads the log after the frontier while there is room, and queues what this endpoint gets:
   * from the live window when it holds everything after the frontier, else from the database.
   */
  private async pull(): Promise<void> {
    const types = JSON.parse(this.endpoint.types) as string[];
    for (;;) {
      const room = this.parts.share() - this.outstanding.size;
      this.full = room <= 0;
      if (this.stopped || this.full) return;
      const access = await this.hooks.access();
      const readable = access ? readableTypes(access, types) : followedTypes(types);
      const limit = Math.min(PAGE, room);
      const page =
        this.parts.window.after(this.frontier, readable, limit) ??
        (await changesAfter(this.db.primary, this.frontier, { types: readable, limit }));
      if (this.stopped) return;
      const shown = await this.selected(access, page.entries);
      if (this.stopped) return;
      for (const entry of shown) this.queue(entry);
      if (page.cursor !== this.frontier) this.parts.recorder.soon();
      this.frontier = page.cursor;
      this.pump();
      if (!page.hasMore) return;
    }
  }

  /**
   * The log no longer holds what this endpoint has not received (it was purged while the endpoint
   * was inactive, or the data was replaced): it cannot go on without a gap, so it is disabled, and
   * enabling it again starts it from the log's end (webhooks/endpoints.ts).
   */
  private pullFailed(error: Error): void {
    if (error instanceof UnseenWhere) {
      // Before the frontier moved past what it could not judge: enabled again once its where (or
      // the role) is mended, it goes on from there, skipping nothing.
      this.disabled = true;
      this.parts.recorder.soon();
      this.hooks.error(error, `webhook ${this.id}: disabled, ${error.message}`);
      return;
    }
    if (error instanceof DomainError && error.kind === 'cursor_expired') {
      this.disabled = true;
      this.parts.recorder.soon();
      this.hooks.error(error, `webhook ${this.id}: disabled, the change log no longer holds what it has not received`);
      return;
    }
    this.hooks.error(error, `webhook ${this.id}: reading the change log failed`);
  }

  /** The entries of `entries` this endpoint gets, as its owner (of its role) sees them. */
  private async selected(access: Access | undefined, entries: readonly ChangeEntry[]): Promise<ChangeEntry[]> {
    const views = access
      ? shownTo(
          (await roleViews(this.db.primary, access, entries)).filter((entry): entry is ChangeEntry => entry !== null),
          this.endpoint.api_client_id,
        )
      : entries;
    const ops = JSON.parse(this.endpoint.ops) as Op[];
    const shown = views.filter((entry) => ops.length === 0 || ops.includes(entry.op));
    return this.where.select(this.db.primary, access, shown);
  }

  private queue(entry: ChangeEntry): void {
    const known = this.known.get(entry.seq);
    if (known && known.status !== 'retrying') return;
    const pending: Pending = {
      entry,
      key: `${entry.type}/${entry.id}`,
      attempts: known?.attempts ?? 0,
      firstAttemptAt: known?.created.getTime(),
      dueAt: known?.next?.getTime() ?? 0,
    };
    this.known.delete(entry.seq);
    this.outstanding.set(entry.seq, pending);
    const line = this.lines.get(pending.key);
    if (line) line.push(pending);
    else {
      this.lines.set(pending.key, [pending]);
      this.schedule(pending);
    }
  }

  /** A resource's first entry: ready now, or when its next attempt is due. */
  private schedule(pending: Pending): void {
    const wait = pending.dueAt - Date.now();
    if (wait <= 0) {
      this.ready.push(pending);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.ready.push(pending);
      this.pump();
    }, wait);
    this.timers.add(timer);
  }

  private pump(): void {
    // Disabled: nothing more is sent (the replica's next lease tick stops this deliverer).
    while (!this.stopped && !this.disabled && this.inFlight < this.policy.concurrency && this.ready.length > 0) {
      // The replica's pacer first: the API's requests come before calls.
      if (this.awaitingPermit) return;
      if (!this.parts.pacer.take(() => this.pumpOnce())) {
        this.awaitingPermit = true;
        return;
      }
      const pending = this.ready.shift()!;
      this.inFlight += 1;
      void this.send(pending);
    }
  }

  /** A permit freed up for this deliverer: one call, then as many as there is room for. */
  private pumpOnce(): void {
    this.awaitingPermit = false;
    if (this.stopped || this.disabled || this.inFlight >= this.policy.concurrency || this.ready.length === 0) {
      this.parts.pacer.give();
      return;
    }
    const pending = this.ready.shift()!;
    this.inFlight += 1;
    void this.send(pending);
    this.pump();
  }

  private async send(pending: Pending): Promise<void> {
    const at = new Date();
    const result = await this.caller.post(this.messageOf(pending, at));
    this.inFlight -= 1;
    this.parts.pacer.give();
    if (this.stopped) return;
    this.settle(pending, result, at);
    this.pump();
  }

  /** The call of `pending` now: its body made once per entry, its signature once per second and keys. */
  private messageOf(pending: Pending, at: Date): Message {
    const timestamp = Math.floor(at.getTime() / 1000);
    const keys = this.keysAt(at);
    if (pending.message?.timestamp === timestamp && pending.signedWith === keys) return pending.message;
    const { entry } = pending;
    const id = messageId(this.id, entry.seq);
    const body = bodyOf(entry);
    pending.message = { id, timestamp, body, signature: sign(keys, id, timestamp, body) };
    pending.signedWith = keys;
    return pending.message;
  }

  /** The keys calls are signed with: the previous secret's too while it is honoured. */
  private keysAt(now: Date): Buffer[] {
    const until = this.endpoint.previous_secret_until;
    return until && until > now ? this.keys.both : this.keys.current;
  }

  /** An attempt's outcome: done (delivered or dead) and the resource's next entry goes, or tried again later. */
  private settle(pending: Pending, result: AttemptResult, at: Date): void {
    pending.attempts += 1;
    pending.firstAttemptAt ??= at.getTime();
    const delivered = result.status !== undefined && result.status >= 200 && result.status < 300;
    const expired = at.getTime() - pending.firstAttemptAt >= this.policy.retryForMs;
    const status = delivered ? 'delivered' : expired ? 'dead' : 'retrying';
    this.hooks.attempted(delivered ? 'delivered' : expired ? 'dead' : 'failed');
    if (delivered) {
      this.lastSuccess = at;
      this.failingSince = null;
    } else {
      this.failingSince ??= at;
      if (at.getTime() - this.failingSince.getTime() >= this.policy.disableAfterMs) this.disabled = true;
    }
    this.done.push({ pending, result, at, status });
    this.parts.recorder.soon();
    if (status === 'retrying') {
      pending.dueAt = at.getTime() + backoff(this.policy.firstRetryMs, pending.attempts);
      this.schedule(pending);
      return;
    }
    this.outstanding.delete(pending.entry.seq);
    pending.message = undefined;
    const line = this.lines.get(pending.key)!;
    line.shift();
    if (line.length > 0) this.schedule(line[0]!);
    else this.lines.delete(pending.key);
    // Half of the share done: read on in the log.
    if (this.full && this.outstanding.size <= this.parts.share() / 2) {
      this.full = false;
      this.wake();
    }
  }

  /** Recorded: the outcomes since the last flush, the cursor (just before the oldest entry not yet done) and health. */
  take(): Records | undefined {
    const first = this.outstanding.keys().next();
    const cursor = first.done ? this.frontier : first.value - 1;
    const healthNow = this.health();
    const healthChanged = healthNow.status !== this.writtenHealth;
    const unwritten = this.unwritten;
    this.unwritten = undefined;
    if (this.done.length === 0 && cursor === this.endpoint.cursor && !healthChanged && !unwritten) return undefined;
    const done = this.done.splice(0);
    const latest = new Map(done.map((d) => [d.pending.entry.seq, d]));
    const records: Records = {
      webhook: this.id,
      generation: this.endpoint.generation,
      attempts: done.map((d) => ({
        webhook_id: this.id,
        seq: d.pending.entry.seq,
        attempted_date: d.at,
        status_code: d.result.status ?? null,
        error: d.result.error ?? null,
        latency_ms: d.result.latencyMs,
        response: d.result.response ?? null,
      })),
      deliveries: [...latest.values()].map((d) => this.deliveryRecord(d)),
      cursor,
      ...((healthChanged || done.length > 0) && { health: healthNow }),
    };
    if (!unwritten) return records;
    // What the last flush could not write, then what came since: a delivery's latest state wins.
    const fresh = new Set(records.deliveries.map((d) => d.seq));
    return {
      ...records,
      attempts: [...unwritten.attempts, ...records.attempts],
      deliveries: [...unwritten.deliveries.filter((d) => !fresh.has(d.seq)), ...records.deliveries],
      health: records.health ?? unwritten.health,
    };
  }

  written(records: Records): void {
    this.endpoint.cursor = records.cursor;
    if (records.health) this.writtenHealth = records.health.status;
  }

  failed(records: Records): void {
    // Written with the next flush; what is lost if the process dies first is sent again.
    this.unwritten = records;
  }

  private deliveryRecord(d: Done): DeliveryRecord {
    const { entry } = d.pending;
    return {
      webhook_id: this.id,
      seq: entry.seq,
      event_type: `${entry.type}.${entry.op}`,
      resource_type: entry.type,
      resource_id: entry.id,
      status: d.status,
      attempts: d.pending.attempts,
      next_attempt_date: d.status === 'retrying' ? new Date(d.pending.dueAt) : null,
      created_date: new Date(d.pending.firstAttemptAt!),
      modified_date: d.at,
    };
  }

  private health(): NonNullable<Records['health']> {
    return {
      status: this.disabled ? 'disabled' : this.failingSince ? 'failing' : 'healthy',
      failing_since: this.failingSince,
      ...(this.lastSuccess && { last_success_date: this.lastSuccess }),
      ...(this.disabled && { is_active: false }),
    };
  }

  /** Stops sending (the lease is given up or lost, the endpoint changed): writes what is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    // Calls in flight end now (failed, not recorded: sent again by whoever delivers next).
    const closing = this.caller.close();
    await this.pulling;
    await this.parts.recorder.remove(this);
    await closing;
  }

  get isDisabled(): boolean {
    return this.disabled;
  }
}
