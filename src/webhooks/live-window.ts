/**
 * The newest entries of the change log, as one follower of the change feed (../data/change-feed.ts)
 * reads them for all of a replica's deliverers: a deliverer near the end of the log takes what is
 * new from here instead of reading the log itself, so that fifty endpoints cost one read of each
 * new entry, not fifty, and share one copy of it (and of its body). Entries as the log holds them
 * (no role's view): each deliverer makes its owner's view of them.
 *
 * It keeps the entries after the position of the deliverer furthest behind (`trim`), KEPT at
 * most: a backlog shared by all endpoints, bounded; a deliverer behind it reads the log itself.
 */
import type { ChangeEntry, ChangesPage } from '../data/changes.ts';

/** Entries kept at most; a deliverer further behind reads the log itself. */
export const KEPT = 10_000;

export class LiveWindow {
  private entries: ChangeEntry[] = [];
  /** Every entry after this position is here, up to `head`; undefined while no follower runs. */
  private from: number | undefined;
  private head = 0;

  /** A follower starts after `position`. */
  start(position: number): void {
    this.from = position;
    this.head = position;
    this.entries = [];
  }

  /** The follower stopped: nothing here can be trusted to be complete. */
  reset(): void {
    this.from = undefined;
    this.entries = [];
  }

  /** Entries the follower read, oldest first, after those it read before. */
  add(entries: readonly ChangeEntry[]): void {
    if (this.from === undefined || entries.length === 0) return;
    for (const entry of entries) this.entries.push(entry);
    this.head = entries.at(-1)!.seq;
    if (this.entries.length > KEPT) {
      const dropped = this.entries.splice(0, this.entries.length - KEPT);
      this.from = dropped.at(-1)!.seq;
    }
  }

  /** No deliverer needs the entries at or before `position` (the least advanced's): dropped. */
  trim(position: number): void {
    if (this.from === undefined || position <= this.from) return;
    const drop = this.indexAfter(position);
    if (drop > 0) this.entries.splice(0, drop);
    this.from = Math.min(position, this.head);
  }

  /** The index of the first entry after `position`. */
  private indexAfter(position: number): number {
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.entries[middle]!.seq <= position) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /**
   * The entries after `after` (of `types`, when given), at most `limit`, as a page of the log;
   * undefined when this window does not hold everything after `after`.
   */
  after(after: number, types: readonly string[] | undefined, limit: number): ChangesPage | undefined {
    if (this.from === undefined || after < this.from) return undefined;
    const low = this.indexAfter(after);
    const wanted = types && new Set(types);
    const taken: ChangeEntry[] = [];
    for (let i = low; i < this.entries.length; i++) {
      const entry = this.entries[i]!;
      if (wanted && !wanted.has(entry.type)) continue;
      if (taken.length === limit) return { entries: taken, cursor: taken.at(-1)!.seq, hasMore: true };
      taken.push(entry);
    }
    return { entries: taken, cursor: Math.max(after, this.head), hasMore: false };
  }
}
