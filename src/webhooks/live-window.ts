/**
 * The newest entries of the change log, as one follower of the change feed (../data/change-feed.ts)
 * reads them for all of a replica's deliverers: a deliverer at the end of the log takes what is
 * new from here instead of reading the log itself, so that fifty endpoints cost one read of each
 * new entry, not fifty. Entries as the log holds them (no role's view): each deliverer makes its
 * owner's view of them.
 */
import type { ChangeEntry, ChangesPage } from '../data/changes.ts';

/** Entries kept; a deliverer further behind reads the log itself. */
const KEPT = 5000;

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
    this.entries.push(...entries);
    this.head = entries.at(-1)!.seq;
    if (this.entries.length > KEPT) {
      const dropped = this.entries.splice(0, this.entries.length - KEPT);
      this.from = dropped.at(-1)!.seq;
    }
  }

  /**
   * The entries after `after` (of `types`, when given), at most `limit`, as a page of the log;
   * undefined when this window does not hold everything after `after`.
   */
  after(after: number, types: readonly string[] | undefined, limit: number): ChangesPage | undefined {
    if (this.from === undefined || after < this.from) return undefined;
    let low = 0;
    let high = this.entries.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (this.entries[middle]!.seq <= after) low = middle + 1;
      else high = middle;
    }
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
