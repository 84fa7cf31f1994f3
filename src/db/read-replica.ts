/**
 * Reads on a streaming read replica (DATABASE_REPLICA_URL), with read-your-writes: an API client
 * that wrote reads where its write is already visible, and a replica that lags or is gone is not
 * waited on: its reads go to the primary.
 *
 * How a replica process knows where a client's write is: every write that changed something is
 * numbered in the change log after it commits (./../data/change-log.ts), by one statement that
 * also answers the primary's WAL position (an LSN at or after the write's commit) and, through
 * the numbering function, sends NOTIFY on `mdg_changes` with that LSN and the API clients whose
 * entries it numbered. The process that served the write takes the LSN from the answer, before
 * the client has its response; every other process hears the notification. A client's reads go to
 * the replica only once the replica has replayed past its last write (`pg_last_wal_replay_lsn()`,
 * polled every POLL_MS). A batch of updates written by a process without a read replica numbers
 * its entries in its own statement and notifies without a position (none read inside a statement
 * is at or after its commit): a process that hears one sends every read to the primary until it
 * has read the primary's position anew (one round trip), the floor for everyone.
 *
 * Conservative where it cannot know: while this process's listening connection is down (or
 * before it first connects) every read goes to the primary, and after every (re)connection every
 * client must wait for the primary's WAL position at that moment (writes made while it could not
 * hear). A notification that names too many clients holds for everyone. Outside an HTTP request
 * (the CLI) reads go to the primary, and so does a request once one of its reads went there: a
 * request never reads older data after newer (a changes cursor is never ahead of the rows read
 * with it). Live changes read the primary (src/data/change-feed.ts, GraphQL subscriptions).
 *
 * Known limit: a read that reaches another replica before the notification of the client's write
 * does (it is sent before the write is answered; on one network it arrives well under a
 * millisecond later) could read from a replica that has not replayed the write. docs/operations/replicas.md,
 * "Read replicas".
 */
import type { DataSource, Statement } from './reads.ts';

/** How often the replica's replay position is read (and its health checked). */
const POLL_MS = 50;
/** While the replica is unreachable: how often to try again. */
const DOWN_POLL_MS = 1000;
/** Without an answer to the position poll for this long, the replica is treated as unreachable. */
const STALE_POLL_MS = 1000;
/** Write positions closer than this in time are kept as one when measuring lag. */
const LAG_SAMPLE_MS = 10;
/** At most this many write positions are kept for measuring lag (later ones merge into the last). */
const MAX_UNREPLAYED = 1000;

/** An LSN (`16/B374D848`) as a number that orders as the WAL does. */
export function lsnValue(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/**
 * The payload of a numbering's notification: `<lsn>;<client ids, comma separated>` or `<lsn>;*`;
 * without the LSN (`;<clients>`) from a batch that numbered its entries in its own statement,
 * before its commit, where no position read is at or after the commit (lsn undefined).
 */
export function parseNotification(payload: string): { lsn: bigint | undefined; clients: number[] | 'all' } | undefined {
  const match = /^([0-9A-F]+\/[0-9A-F]+)?;(\*|[0-9,]*)$/i.exec(payload);
  if (!match) return undefined;
  const clients = match[2] === '*' ? 'all' : match[2]!.split(',').filter(Boolean).map(Number);
  return { lsn: match[1] === undefined ? undefined : lsnValue(match[1]), clients };
}

/** A notification names at most this many clients; past it, `*` (every client), as `changes_number` does. */
const MAX_NAMED_CLIENTS = 100;

/** The payload of a notification without a position (parseNotification), naming `clients`. */
export function notificationWithoutPosition(clients: ReadonlySet<number>): string {
  return clients.size > MAX_NAMED_CLIENTS ? ';*' : `;${[...clients].join(',')}`;
}

/** What the replica router needs of the two databases, outside the counted data layer. */
export interface ReplicaLinks {
  /** The replica's replay position; the current position when it is not in recovery (a primary given as replica). */
  replayPosition(): Promise<string | null>;
  /** The primary's current WAL position. */
  primaryPosition(): Promise<string>;
  /** Whether an error of a statement on the replica means it cannot serve now (the statement is sent to the primary instead). */
  unavailable(error: unknown): boolean;
}

export interface ReplicaState {
  /** The replica answers, is within the allowed lag and has replayed the floor: reads of a client with no write pending go there. */
  usable: boolean;
  /** Milliseconds since the oldest write this process heard of that the replica has not replayed. */
  lagMs: number;
  /** Statements the data layer sent to the replica. */
  statements: number;
}

export class ReadReplica {
  /** The replica's last known replay position (-1: not known yet). */
  private replayed = -1n;
  private lastAnswerAt = 0;
  private reachable = false;
  /** The listening connection is up. */
  private listenerUp = false;
  /** Up, and the floor for what was said before it was set. */
  private hearing = false;
  /**
   * Counts the listener's ups and downs and the notifications without a position: a floor read
   * before the latest of them does not make this process hearing.
   */
  private listenerEpoch = 0;
  /** Every client's reads wait for this position (set on each (re)connection of the listener). */
  private floor = 0n;
  /** By API client: the position of its last write not yet known replayed. */
  private readonly positions = new Map<number, bigint>();
  /** Positions of writes not yet replayed, oldest first, with when they were heard: the lag. */
  private readonly unreplayed: { lsn: bigint; at: number }[] = [];
  private statementCount = 0;
  /** The floor read for notifications without a position, and whether another must follow it. */
  private floorReading: Promise<void> | undefined;
  private floorAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly primary: DataSource,
    private readonly replica: DataSource,
    private readonly links: ReplicaLinks,
    private readonly maxLagMs: number,
  ) {}

  /**
   * A request's reads, routed for `clientId` (undefined: no client, such as an open route): on
   * the replica while it serves that client, else on the primary; once one of them went to the
   * primary, the rest do too. A value made per request rather than AsyncLocalStorage: on Node 20
   * that turns on promise hooks for every promise of the process (src/data/write-caller.ts).
   */
  readsFor(clientId: number | undefined): DataSource {
    let onPrimary = false;
    return {
      provider: this.primary.provider,
      query: async <T>(statement: Statement): Promise<T[]> => {
        if (!onPrimary && this.serves(clientId)) {
          try {
            const rows = await this.replica.query<T>(statement);
            this.statementCount++;
            return rows;
          } catch (error) {
            if (!this.links.unavailable(error)) throw error;
            this.reachable = false;
          }
        }
        onPrimary = true;
        return this.primary.query<T>(statement);
      },
    };
  }

  get state(): ReplicaState {
    return {
      usable: this.servesEveryone(),
      lagMs: this.lagMs(),
      statements: this.statementCount,
    };
  }

  /**
   * A client's write committed at or before `lsn`. Undefined: the numbering that would have told
   * failed; the primary's current position stands in, and while that cannot be read either, no
   * client reads from the replica until it can (never throws: the write has committed).
   */
  async wrote(clientId: number | undefined, lsn: string | undefined): Promise<void> {
    let position: bigint;
    try {
      position = lsnValue(lsn ?? (await this.links.primaryPosition()));
    } catch {
      this.hearing = false;
      this.listenerEpoch++;
      return;
    }
    if (clientId !== undefined) this.raise(clientId, position);
    this.heard(position);
  }

  /**
   * A numbering's notification, from any process on the primary. One without a position (a batch
   * of a process without a read replica) was sent by a write that has committed by now: every read
   * goes to the primary until the primary's position, read after this, is the floor for everyone.
   */
  notified(payload: string): void {
    const parsed = parseNotification(payload);
    if (!parsed) return;
    if (parsed.lsn === undefined) {
      this.hearing = false;
      this.listenerEpoch++;
      this.readFloorAgain();
      return;
    }
    if (parsed.clients === 'all') this.raiseFloor(parsed.lsn);
    else for (const clientId of parsed.clients) this.raise(clientId, parsed.lsn);
    this.heard(parsed.lsn);
  }

  /** The listening connection is (again) up: whatever was written before now is a floor for everyone. */
  listening(): Promise<void> {
    this.listenerUp = true;
    this.listenerEpoch++;
    return this.setFloor();
  }

  /** The listening connection is down: nothing said meanwhile is heard, so every read goes to the primary. */
  deaf(): void {
    this.listenerUp = false;
    this.hearing = false;
    this.listenerEpoch++;
  }

  /**
   * The floor read again after a notification without a position: one read at a time, and one
   * more after it when notifications came during it (its epoch would not make this process hearing).
   */
  private readFloorAgain(): void {
    if (this.floorReading) {
      this.floorAgain = true;
      return;
    }
    this.floorReading = (async () => {
      do {
        this.floorAgain = false;
        await this.setFloor();
      } while (this.floorAgain && !this.stopped);
    })().finally(() => {
      this.floorReading = undefined;
    });
  }

  private async setFloor(): Promise<void> {
    const epoch = this.listenerEpoch;
    try {
      const position = lsnValue(await this.links.primaryPosition());
      this.raiseFloor(position);
      this.heard(position);
      // Read before the listener went down (or up again): a later call sets the floor that counts.
      if (epoch === this.listenerEpoch) this.hearing = this.listenerUp;
    } catch {
      // Tried again at the next poll.
    }
  }

  start(): void {
    const tick = async () => {
      if (this.stopped) return;
      await this.poll();
      if (!this.stopped && this.listenerUp && !this.hearing) await this.setFloor();
      if (!this.stopped) {
        this.timer = setTimeout(tick, this.reachable ? POLL_MS : DOWN_POLL_MS);
        this.timer.unref();
      }
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Reads the replica's position (one at a time: the next is scheduled when this one ends). */
  private async poll(): Promise<void> {
    try {
      const text = await this.links.replayPosition();
      if (text === null) throw new Error('the replica has no replay position');
      const replayed = lsnValue(text);
      // Behind what it had replayed (another standby behind the URL, a restart from an older
      // state): positions dropped as replayed may not be; every client waits for a new floor.
      if (replayed < this.replayed) {
        this.hearing = false;
        this.listenerEpoch++;
      }
      this.replayed = replayed;
      this.reachable = true;
      this.lastAnswerAt = Date.now();
      for (const [clientId, position] of this.positions) if (position <= this.replayed) this.positions.delete(clientId);
      while (this.unreplayed.length > 0 && this.unreplayed[0]!.lsn <= this.replayed) this.unreplayed.shift();
    } catch {
      this.reachable = false;
    }
  }

  private raiseFloor(position: bigint): void {
    if (position > this.floor) this.floor = position;
  }

  private raise(clientId: number, position: bigint): void {
    const known = this.positions.get(clientId);
    if (known === undefined || position > known) this.positions.set(clientId, position);
  }

  private heard(position: bigint): void {
    const last = this.unreplayed.at(-1);
    if (last && position <= last.lsn) return;
    const at = Date.now();
    if (last && (at - last.at < LAG_SAMPLE_MS || this.unreplayed.length >= MAX_UNREPLAYED)) last.lsn = position;
    else this.unreplayed.push({ lsn: position, at });
  }

  private lagMs(): number {
    const oldest = this.unreplayed[0];
    return oldest ? Date.now() - oldest.at : 0;
  }

  private usable(): boolean {
    return (
      this.reachable && this.hearing && Date.now() - this.lastAnswerAt <= STALE_POLL_MS && this.lagMs() <= this.maxLagMs
    );
  }

  /** Reads of a client with no write pending go to the replica. */
  private servesEveryone(): boolean {
    return this.usable() && this.replayed >= this.floor;
  }

  private serves(clientId: number | undefined): boolean {
    if (!this.servesEveryone()) return false;
    const position = clientId === undefined ? undefined : this.positions.get(clientId);
    return position === undefined || this.replayed >= position;
  }
}
