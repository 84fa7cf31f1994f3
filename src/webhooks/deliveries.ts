/**
 * Webhook delivery on this replica: which endpoints it delivers for, and waking their
 * deliverers (./deliverer.ts) when the log grows.
 *
 * Each endpoint has one deliverer across all replicas: a lease in its row (`lease_owner`,
 * `lease_until`). Every LEASE_TICK_MS a replica renews its leases, drops the endpoints that were
 * changed (a replay, new filters: their deliverer starts again from the stored state), made
 * inactive, deleted or whose owner was revoked, and takes the endpoints whose lease ran out.
 * A replica that stops gives its leases up; one that dies holds them LEASE_MS at most: another
 * takes over within LEASE_MS + LEASE_TICK_MS (under 10 s).
 *
 * The log's growth reaches the deliverers through the change feed subscriptions use (one
 * follower for all of them), woken by NOTIFY on PostgreSQL.
 */
import { LOGGED_TYPES } from '../data/change-request-entries.ts';
import { randomUUID } from 'node:crypto';
import type { ChangeFeed, Follower } from '../data/change-feed.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { Sql } from '../db/sql.ts';
import type { RequestQueue } from '../http/concurrency.ts';
import type { RoleBook } from '../permissions/book.ts';
import { logPosition } from '../data/changes.ts';
import { Deliverer } from './deliverer.ts';
import { type DeliveryPolicy, type Outcome, shareOf } from './policy.ts';
import { LiveWindow } from './live-window.ts';
import { Pacer } from './pacer.ts';
import { Recorder } from './recorder.ts';

/** How long attempts, and deliveries no longer retried, are kept. */
export const RECORDS_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes the attempts older than RECORDS_KEPT_MS, and the deliveries as old that are done and at
 * or before their endpoint's cursor (one after it still tells a restarted deliverer not to send
 * it again); returns how many went.
 */
export async function purgeWebhookRecords(db: Database, clock: Clock): Promise<number> {
  const before = new Date(clock.now().getTime() - RECORDS_KEPT_MS);
  return db.transaction(async (tx) => {
    const attempts = await tx.execute(
      new Sql(tx.provider).text('DELETE FROM "webhook_attempts" WHERE "attempted_date" < ').value(before),
    );
    const deliveries = new Sql(tx.provider).text('DELETE FROM "webhook_deliveries" WHERE "modified_date" < ');
    deliveries.value(before).text(` AND "status" <> 'retrying' AND "seq" <= `);
    deliveries.text('(SELECT "cursor" FROM "webhooks" w WHERE w."id" = "webhook_deliveries"."webhook_id")');
    return attempts + (await tx.execute(deliveries));
  });
}

export const LEASE_MS = 6000;
export const LEASE_TICK_MS = 2000;

export interface DeliveriesOptions {
  db: Database;
  roles: RoleBook;
  feed: ChangeFeed;
  /** The API's requests waiting for a slot: calls yield to them. */
  requestQueue: RequestQueue;
  policy: DeliveryPolicy;
  onAttempt: (outcome: Outcome) => void;
  onError: (error: Error, what: string) => void;
}

export class WebhookDeliveries {
  /** This replica, as lease holder. */
  readonly owner = `${process.pid}-${randomUUID()}`;
  private readonly deliverers = new Map<number, Deliverer>();
  private readonly window = new LiveWindow();
  private readonly recorder: Recorder;
  private pacer: Pacer | undefined;
  private follower: Follower | undefined;
  private following: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private tickAgain = false;
  private running = false;
  /** When the leases were last renewed (performance.now()). */
  private renewedAt = performance.now();

  constructor(private readonly options: DeliveriesOptions) {
    this.recorder = new Recorder(options.db, this.owner, (error) =>
      options.onError(error, 'webhooks: recording deliveries failed; written with the next flush'),
    );
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.pacer = new Pacer(() => this.options.requestQueue.waiting > 0);
    this.timer = setInterval(() => this.tick(), LEASE_TICK_MS);
    this.timer.unref();
    this.tick();
  }

  /**
   * An endpoint was made or changed here: acted on now rather than at the next tick, and resolved
   * once done, so that an endpoint made inactive through this replica sends nothing after the
   * answer says so (another replica delivering it stops at its next tick, LEASE_TICK_MS).
   */
  async changed(): Promise<void> {
    if (!this.running) return;
    this.tick();
    // A tick under way read the endpoints before the change: the one queued after it acts on it.
    while (this.ticking) await this.ticking.catch(() => undefined);
  }

  /** Per endpoint delivered here, the age of its oldest entry not yet delivered (ms). */
  backlogs(): { id: number; ms: number }[] {
    const now = Date.now();
    return [...this.deliverers.values()].map((d) => ({ id: d.id, ms: d.oldestWaitingMs(now) }));
  }

  /** Follows the change log while this replica delivers for some endpoint (and only then: no listening otherwise). */
  private ensureFollowing(): void {
    this.following ??= this.follow().finally(() => {
      this.following = undefined;
    });
  }

  private async follow(): Promise<void> {
    while (this.running && this.deliverers.size > 0) {
      try {
        const position = await logPosition(this.options.db.primary);
        // Every entry, change requests' too: the window serves endpoints that follow any types.
        const follower = await this.options.feed.follow(position, LOGGED_TYPES);
        this.follower = follower;
        this.window.start(position);
        // What committed between a deliverer's last read and `position` is in no window: they read it.
        for (const deliverer of this.deliverers.values()) deliverer.wake();
        for (;;) {
          const entries = await follower.take();
          // Ended by unfollow: go on only if endpoints were taken meanwhile (the loop's test).
          if (!entries) break;
          this.window.add(entries);
          this.trimWindow();
          for (const deliverer of this.deliverers.values()) deliverer.wake();
        }
      } catch (error) {
        if (!this.running) break;
        // Behind, or the feed lost its reads: follow again (the deliverers read the log themselves).
        this.options.onError(error as Error, 'webhooks: following the change log failed; following again');
        for (const deliverer of this.deliverers.values()) deliverer.wake();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      } finally {
        this.window.reset();
      }
    }
  }

  /** The live window keeps what the deliverer furthest behind has still to read, no more. */
  private trimWindow(): void {
    let least = Number.POSITIVE_INFINITY;
    for (const deliverer of this.deliverers.values()) least = Math.min(least, deliverer.position);
    if (Number.isFinite(least)) this.window.trim(least);
  }

  /** No endpoint delivered here any more: the change log is not followed. */
  private async unfollow(): Promise<void> {
    const follower = this.follower;
    this.follower = undefined;
    await follower?.return();
  }

  private tick(): void {
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = this.leases()
      .then(() => {
        this.renewedAt = performance.now();
      })
      .catch(async (error: Error) => {
        this.options.onError(error, 'webhooks: renewing and taking leases failed');
        // Leases this replica could not renew may be another's by now: stop before it starts.
        if (performance.now() - this.renewedAt > LEASE_MS - LEASE_TICK_MS) await this.stopAll();
      })
      .finally(() => {
        this.ticking = undefined;
        if (this.tickAgain && this.running) {
          this.tickAgain = false;
          this.tick();
        }
      });
  }

  private async leases(): Promise<void> {
    const prisma = this.options.db.prisma;
    const now = new Date();
    const until = new Date(now.getTime() + LEASE_MS);
    await prisma.webhookEndpoint.updateMany({ where: { lease_owner: this.owner }, data: { lease_until: until } });
    const held = await prisma.webhookEndpoint.findMany({
      where: { lease_owner: this.owner },
      select: { id: true, generation: true, is_active: true, api_client: { select: { revoked: true, role: true } } },
    });
    const heldById = new Map(held.map((row) => [row.id, row]));
    for (const [id, deliverer] of this.deliverers) {
      const row = heldById.get(id);
      // Still its to deliver, as it was started: same filters and cursor (generation), same role.
      const unchanged = row?.generation === deliverer.generation && row.api_client.role === deliverer.role;
      if (row?.is_active && !row.api_client.revoked && unchanged && !deliverer.isDisabled) continue;
      this.deliverers.delete(id);
      await deliverer.stop();
      if (row)
        await prisma.webhookEndpoint.updateMany({
          where: { id, lease_owner: this.owner },
          data: { lease_owner: null, lease_until: null },
        });
    }
    if (this.deliverers.size === 0) await this.unfollow();
    // A safety net under the feed's signals: a deliverer at the end of the window reads nothing.
    for (const deliverer of this.deliverers.values()) deliverer.wake();
    if (!this.running) return;
    const free = await prisma.webhookEndpoint.findMany({
      where: {
        is_active: true,
        api_client: { revoked: false },
        OR: [{ lease_owner: null }, { lease_until: null }, { lease_until: { lt: now } }, { lease_owner: this.owner }],
      },
      select: { id: true },
    });
    for (const { id } of free) {
      if (this.deliverers.has(id)) continue;
      const taken = await prisma.webhookEndpoint.updateMany({
        where: {
          id,
          is_active: true,
          OR: [{ lease_owner: null }, { lease_until: null }, { lease_until: { lt: now } }, { lease_owner: this.owner }],
        },
        data: { lease_owner: this.owner, lease_until: until },
      });
      if (taken.count === 1) await this.begin(id);
    }
  }

  private async begin(id: number): Promise<void> {
    const prisma = this.options.db.prisma;
    const row = await prisma.webhookEndpoint.findUnique({
      where: { id },
      include: { api_client: { select: { role: true } } },
    });
    if (!row) return;
    const role = row.api_client.role;
    const deliverer = new Deliverer(row, role, {
      db: this.options.db,
      recorder: this.recorder,
      pacer: this.pacer!,
      window: this.window,
      share: () => shareOf(this.deliverers.size),
      policy: this.options.policy,
      hooks: {
        access: () => this.options.roles.access(role),
        attempted: this.options.onAttempt,
        error: this.options.onError,
      },
    });
    try {
      // What was delivered after the cursor is known before anything is sent.
      await deliverer.start();
    } catch (error) {
      await prisma.webhookEndpoint.updateMany({
        where: { id, lease_owner: this.owner },
        data: { lease_owner: null, lease_until: null },
      });
      throw error;
    }
    this.deliverers.set(id, deliverer);
    this.recorder.add(deliverer);
    this.ensureFollowing();
    deliverer.wake();
  }

  private async stopAll(): Promise<void> {
    const stopping = [...this.deliverers.values()];
    this.deliverers.clear();
    await Promise.all(stopping.map((d) => d.stop()));
  }

  /** Stops delivering here: what is done is written, and the leases are given up for another replica to take at once. */
  async close(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.timer);
    await this.unfollow();
    await this.ticking;
    await this.stopAll();
    await this.recorder.close();
    this.pacer?.close();
    await this.options.db.prisma.webhookEndpoint
      .updateMany({ where: { lease_owner: this.owner }, data: { lease_owner: null, lease_until: null } })
      .catch((error: Error) => this.options.onError(error, 'webhooks: giving up the leases failed'));
  }
}
