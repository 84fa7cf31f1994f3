/**
 * Live changes: followers of the change log on this replica, each from its own cursor, served
 * with every entry after it in commit order, at least once.
 *
 * The log is the only source of truth; a signal only says "read it again". One reader per
 * replica (the feed) reads the entries after the last one it served, once for all followers, and
 * hands each live follower those of its types. A follower that starts from an older cursor, or
 * that the feed has not caught up with, reads from the database on its own until it reaches the
 * feed; only then does it go live. Entries at or below what a follower has are dropped, so the
 * two paths overlap without gaps.
 *
 * What wakes the feed: on PostgreSQL, NOTIFY from the transaction that numbered new entries
 * (./change-log.ts; delivered at its commit to every replica listening on the same database:
 * ../db/notifications.ts); on SQLite, the
 * writes of this process (./change-log.ts `onChangesCommitted`); on both, a poll (writes of other
 * processes on a SQLite file; a notification lost with its connection). When the listening
 * connection comes back, the feed reads the gap from the log.
 *
 * A follower with a role gets the entries as its role sees them (./role-changes.ts), made once
 * per role for all its followers (ChangeFeed.viewsOf).
 *
 * Bounded: a follower that does not take its entries (a slow consumer) is ended once more than
 * `maxBacklog` wait for it; it resumes from its last cursor.
 */
import type { Database } from '../db/client.ts';
import { CHANGES_CHANNEL, listen, type Listener } from '../db/notifications.ts';
import { numberChanges, onChangesCommitted } from './change-log.ts';
import { type ChangeEntry, changesAfter, checkCursor, logPosition } from './changes.ts';
import { DomainError } from './errors.ts';
import type { Access } from '../permissions/access.ts';
import { readableTypes, roleViews } from './role-changes.ts';
import { followedTypes, shownTo } from './change-request-entries.ts';
import { count } from '../words.ts';

/** Entries per read, the feed's and a catching-up follower's. */
const PAGE = 500;
/** Entries whose view a role's followers share, per role (the newest). */
const VIEWS_KEPT = 5000;
/** The shortest time between two reads of the feed (see ChangeFeed.wake). */
export const READ_INTERVAL_MS = 40;

export interface FeedOptions {
  /** Most entries a live follower may have waiting before it is ended. */
  maxBacklog: number;
  /** How often the feed reads the log with no signal, while anyone follows it (ms). */
  pollMs: number;
  /** PostgreSQL: the URL of a direct connection for LISTEN (not through a pooler). */
  listenUrl?: string;
  /** A failed read of the feed, or a lost listening connection (the feed goes on). */
  onError?: (error: Error, what: string) => void;
}

/** Why a follower was ended by the feed (its consumer resumes from its last cursor). */
export class FollowerEnded extends Error {
  constructor(
    readonly reason: 'behind' | 'closing' | 'expired',
    message: string,
  ) {
    super(message);
  }
}

export class ChangeFeed {
  /** The newest entry served to live followers. */
  head = 0;
  private readonly followers = new Set<Follower>();
  private readonly live = new Set<Follower>();
  private running: Promise<void> | undefined;
  private stopRunning: (() => Promise<void>) | undefined;
  private reading = false;
  private readAgain = false;
  private scheduled: NodeJS.Timeout | undefined;
  private lastRead = Number.NEGATIVE_INFINITY;
  /** Per role: entries as it sees them, by seq, made once for all its followers (null: not shown). */
  private readonly views = new WeakMap<Access, Map<number, Promise<ChangeEntry | null>>>();

  constructor(
    private readonly db: Database,
    private readonly options: FeedOptions,
  ) {}

  /** How many follow the log on this replica now. */
  get size(): number {
    return this.followers.size;
  }

  /**
   * A follower of the entries after `after` (of `types`, when given); from now when `after` is
   * undefined. cursor_expired (a DomainError) when `after` cannot be followed. With a `reader`
   * (an API client and its role), it gets the entries as that client of that role sees them
   * (../data/role-changes.ts), of the types it may read.
   */
  async follow(
    after: number | undefined,
    types?: readonly string[],
    reader?: { access: Access; clientId: number },
  ): Promise<Follower> {
    const start = after === undefined ? await logPosition(this.db.primary) : after;
    if (after !== undefined) await checkCursor(this.db.primary, after);
    const followed = reader ? readableTypes(reader.access, types) : followedTypes(types);
    const follower = new Follower(this, new Set(followed), start, reader);
    this.followers.add(follower);
    try {
      await (this.running ??= this.run());
    } catch (error) {
      this.running = undefined;
      this.leave(follower);
      throw error;
    }
    return follower;
  }

  /**
   * Takes the log's end as the head, then starts what wakes the feed (whatever commits between
   * the two is read at the first wake: the listener's first connection wakes it).
   */
  private async run(): Promise<void> {
    await numberChanges(this.db);
    this.head = await logPosition(this.db.primary);
    const stops: (() => unknown)[] = [];
    if (this.db.provider === 'postgresql' && this.options.listenUrl) {
      const listener: Listener = listen(this.options.listenUrl, CHANGES_CHANNEL, {
        onNotification: () => this.wake(),
        // The first connection, or one back after a loss: read what it may have missed.
        onConnected: () => this.wake(),
        onError: (error) => this.options.onError?.(error, 'the listening connection was lost; reconnecting'),
      });
      stops.push(() => listener.close());
    } else stops.push(onChangesCommitted(this.db, () => this.wake()));
    // The poll also numbers entries a write left unnumbered (its process stopped in between).
    const poll = setInterval(() => void numberChanges(this.db).then(() => this.wake()), this.options.pollMs);
    poll.unref();
    stops.push(() => clearInterval(poll));
    this.stopRunning = async () => {
      for (const stop of stops) await stop();
    };
    // Every follower may have left while this started.
    if (this.followers.size === 0) this.leave(undefined);
  }

  /** Ends every follower (the server is shutting down): each consumer resumes from its last cursor, elsewhere. */
  close(): void {
    for (const follower of [...this.followers])
      follower.end(
        new FollowerEnded(
          'closing',
          'this server is shutting down: subscribe again (another replica will answer) with `after` set to the last cursor received',
        ),
      );
  }

  private expireLive(): void {
    for (const follower of [...this.live])
      follower.end(
        new FollowerEnded(
          'expired',
          'changes this subscriber had not received are no longer kept (purged, or the data replaced): read the data afresh, then subscribe with its cursor',
        ),
      );
  }

  /** A follower caught up with the feed: from now on the feed hands it its entries. */
  attach(follower: Follower): void {
    if (this.followers.has(follower)) this.live.add(follower);
  }

  /** A follower that ended or was closed. The last one stops the listening and the poll. */
  leave(follower: Follower | undefined): void {
    if (follower) {
      this.followers.delete(follower);
      this.live.delete(follower);
    }
    if (this.followers.size === 0 && this.stopRunning) {
      clearTimeout(this.scheduled);
      this.scheduled = undefined;
      const stop = this.stopRunning;
      this.stopRunning = undefined;
      this.running = undefined;
      void stop();
    }
  }

  /**
   * Something may have been committed: read the log after the head. One read at a time, and at
   * most one every READ_INTERVAL_MS: under a stream of writes each read gathers several, and
   * each follower gets them in one delivery (with a thousand subscribers, a read per write was
   * a thousand deliveries per write). The first change after a quiet spell is read at once.
   */
  wake(): void {
    if (this.reading || this.scheduled) {
      this.readAgain = true;
      return;
    }
    const wait = this.lastRead + READ_INTERVAL_MS - performance.now();
    if (wait > 0) {
      this.scheduled = setTimeout(() => {
        this.scheduled = undefined;
        this.readAgain = false;
        this.startReading();
      }, wait);
      return;
    }
    this.startReading();
  }

  private startReading(): void {
    this.reading = true;
    this.lastRead = performance.now();
    void this.readNew().finally(() => {
      this.reading = false;
      // Woken while it read: once more, when its turn comes.
      if (this.readAgain) {
        this.readAgain = false;
        this.wake();
      }
    });
  }

  /** Reads what is after the head and hands it to the live followers. */
  private async readNew(): Promise<void> {
    if (this.followers.size === 0) return;
    try {
      for (;;) {
        const page = await changesAfter(this.db.primary, this.head, { limit: PAGE });
        for (const follower of this.live) follower.offer(page.entries);
        this.head = page.cursor;
        if (!page.hasMore) return;
      }
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'cursor_expired') {
        // Entries the feed had not read yet were purged, or the data replaced: its followers
        // cannot be served without a gap. They end, to read afresh; the feed goes on from now.
        this.expireLive();
        this.head = await logPosition(this.db.primary).catch(() => this.head);
        this.readAgain = true;
        return;
      }
      // The next signal or poll tries again from the same head: nothing is skipped.
      this.options.onError?.(error as Error, 'reading the change log failed');
    }
  }

  get maxBacklog(): number {
    return this.options.maxBacklog;
  }

  /**
   * Entries as the role sees them (null where it does not), made once for all of the role's
   * followers: those that take the same entries at about the same time share the statements.
   */
  viewsOf(access: Access, entries: readonly ChangeEntry[]): Promise<(ChangeEntry | null)[]> {
    let kept = this.views.get(access);
    if (!kept) this.views.set(access, (kept = new Map()));
    const views = kept;
    const missing = entries.filter((entry) => !views.has(entry.seq));
    if (missing.length > 0) {
      const made = roleViews(this.reads, access, missing);
      missing.forEach((entry, i) => {
        const view = made.then((shown) => shown[i] ?? null);
        // A failed read is not kept: the next follower to take the entry tries again.
        view.catch(() => {
          if (views.get(entry.seq) === view) views.delete(entry.seq);
        });
        views.set(entry.seq, view);
      });
    }
    const taken = entries.map((entry) => views.get(entry.seq)!);
    while (views.size > VIEWS_KEPT) views.delete(views.keys().next().value!);
    return Promise.all(taken);
  }

  /** The primary, also with a read replica: live changes follow writes as they commit, not as a replica replays them. */
  get reads() {
    return this.db.primary;
  }
}

/**
 * One follower, as an async iterator written out by hand: `return()` (a client that went away)
 * must end it at once, also while it waits for the next entry, which an async generator
 * suspended at an `await` would only do once that wait is over.
 */
export class Follower implements AsyncIterableIterator<ChangeEntry> {
  private readonly queue: ChangeEntry[] = [];
  /** The newest entry queued or passed over: nothing at or below it is queued again. */
  private through: number;
  private live = false;
  private closed = false;
  private failure: Error | undefined;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly types: ReadonlySet<string> | undefined,
    start: number,
    /** The client and role it follows for: entries as it sees them. None: admin, every entry as it is. */
    private readonly reader?: { access: Access; clientId: number },
  ) {
    this.through = start;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Entries the feed read (newest last): those after what this follower has, of its types. */
  offer(entries: readonly ChangeEntry[]): void {
    // Behind: more entries than the limit were still waiting from earlier reads of the feed (a
    // burst read at once does not count against a consumer that takes what it is given).
    const waiting = this.queue.length;
    for (const entry of entries) {
      if (entry.seq <= this.through) continue;
      this.through = entry.seq;
      if (!this.types || this.types.has(entry.type)) this.queue.push(entry);
    }
    if (waiting > this.feed.maxBacklog) {
      this.end(
        new FollowerEnded(
          'behind',
          `more than ${count(this.feed.maxBacklog, 'change')} ${this.feed.maxBacklog === 1 ? 'was' : 'were'} waiting for this subscriber: it was ended; subscribe again with \`after\` set to the last cursor received`,
        ),
      );
    }
    this.wakeUp?.();
  }

  /** Ends this follower: its consumer gets `failure` after the entries it was already handed. */
  end(failure: Error): void {
    this.failure = failure;
    this.queue.length = 0;
    this.feed.leave(this);
    this.wakeUp?.();
  }

  async next(): Promise<IteratorResult<ChangeEntry>> {
    const entries = await this.take(1);
    return entries ? { done: false, value: entries[0]! } : { done: true, value: undefined };
  }

  /**
   * The entries waiting, at most `most` (at least one: it waits for one), oldest first; null once
   * closed. Throws what ended the follower. Taking them together is what lets a transport send a
   * burst in one write.
   */
  async take(most = Number.POSITIVE_INFINITY): Promise<ChangeEntry[] | null> {
    for (;;) {
      if (this.closed) return null;
      if (this.queue.length > 0) {
        const taken = this.queue.splice(0, most);
        if (!this.reader) return taken;
        const views = (await this.feed.viewsOf(this.reader.access, taken)).filter((e): e is ChangeEntry => e !== null);
        const shown = shownTo(views, this.reader.clientId);
        if (this.closed) return null;
        // Entries the role does not see are passed over: the next ones are waited for.
        if (shown.length > 0) return shown;
        continue;
      }
      if (this.failure) {
        this.closed = true;
        throw this.failure;
      }
      if (this.live) await new Promise<void>((resolve) => (this.wakeUp = resolve));
      else await this.catchUp();
      this.wakeUp = undefined;
    }
  }

  /** One page from the database; live once at the end of the log and not behind the feed. */
  private async catchUp(): Promise<void> {
    const page = await changesAfter(this.feed.reads, this.through, {
      types: this.types && [...this.types],
      limit: PAGE,
    });
    if (this.closed) return;
    this.queue.push(...page.entries.filter((e) => e.seq > this.through));
    this.through = Math.max(this.through, page.cursor);
    // Checked and done with nothing awaited in between: no read of the feed can slip between the two.
    if (!page.hasMore && this.feed.head <= this.through) {
      this.live = true;
      this.feed.attach(this);
    }
  }

  async return(): Promise<IteratorResult<ChangeEntry>> {
    this.closed = true;
    this.queue.length = 0;
    this.feed.leave(this);
    this.wakeUp?.();
    return { done: true, value: undefined };
  }
}
