/**
 * When the server gives memory back (src/observability/memory.ts): one full collection once it is
 * quiet after start-up or a burst, one young-generation collection after a further quiet spell,
 * nothing while requests keep coming. Time is the test's; what it measures on memory is in the
 * benchmark (bench/README.md, "At rest").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  QUIET_AFTER_BURST_MS,
  QUIET_MS,
  trimWhenIdle,
  YOUNG_COLLECTION_DELAY_MS,
  YOUNG_COLLECTION_TRIES,
  YOUNG_RETRY_MS,
} from '../src/observability/memory.ts';

describe('trimWhenIdle', () => {
  let collections: string[];
  // Only gc() without options is a full collection: Node 20's V8 takes any options object,
  // `{ type: 'major' }` included, for a young-generation one.
  const collect = (options?: { type: 'major' | 'minor' }) =>
    void collections.push(options === undefined ? 'full' : options.type);
  const now = () => Date.now();
  /** The young generation's size as the trim reads it: shrunk unless a test says otherwise. */
  let young: number;
  const youngBytes = () => young;

  beforeEach(() => {
    vi.useFakeTimers();
    collections = [];
    young = 1024 * 1024;
  });
  afterEach(() => vi.useRealTimers());

  it('collects once start-up is over, then the young generation after a further quiet spell, then nothing', () => {
    const trim = trimWhenIdle(collect, now, youngBytes);
    vi.advanceTimersByTime(QUIET_MS - 500);
    expect(collections).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(collections).toEqual(['full']);
    vi.advanceTimersByTime(YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['full', 'minor']);
    vi.advanceTimersByTime(60_000);
    expect(collections).toEqual(['full', 'minor']);
    trim.stop();
  });

  it('waits while requests keep coming, and trims again after the next burst', () => {
    const trim = trimWhenIdle(collect, now, youngBytes);
    for (let i = 0; i < 20; i++) {
      trim.activity();
      vi.advanceTimersByTime(QUIET_MS / 2);
    }
    expect(collections).toEqual([]);
    vi.advanceTimersByTime(QUIET_MS + YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['full', 'minor']);
    trim.activity();
    // After start-up, a pause between bursts is not quiet: the heap is left as the load grew it.
    vi.advanceTimersByTime(QUIET_AFTER_BURST_MS - 500);
    expect(collections).toEqual(['full', 'minor']);
    vi.advanceTimersByTime(1000);
    expect(collections).toEqual(['full', 'minor', 'full']);
    trim.stop();
  });

  it('leaves the young generation alone when a request arrives after the full collection', () => {
    const trim = trimWhenIdle(collect, now, youngBytes);
    vi.advanceTimersByTime(QUIET_MS + 500);
    expect(collections).toEqual(['full']);
    vi.advanceTimersByTime(1000);
    trim.activity();
    vi.advanceTimersByTime(QUIET_AFTER_BURST_MS + 500);
    // The burst that began ended a quiet spell ago: a full collection for it, not the young one.
    expect(collections).toEqual(['full', 'full']);
    trim.stop();
  });

  it('schedules nothing without --expose-gc', () => {
    const trim = trimWhenIdle(undefined, now);
    expect(vi.getTimerCount()).toBe(0);
    trim.activity();
    trim.stop();
  });

  it('collects the young generation again, YOUNG_RETRY_MS apart, until V8 has shrunk it', () => {
    young = 64 * 1024 * 1024;
    const trim = trimWhenIdle(collect, now, youngBytes);
    vi.advanceTimersByTime(QUIET_MS + 500 + YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['full', 'minor']);
    vi.advanceTimersByTime(YOUNG_RETRY_MS);
    expect(collections).toEqual(['full', 'minor', 'minor']);
    young = 1024 * 1024;
    vi.advanceTimersByTime(YOUNG_RETRY_MS);
    expect(collections).toEqual(['full', 'minor', 'minor', 'minor']);
    // Shrunk: nothing more.
    vi.advanceTimersByTime(10 * YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['full', 'minor', 'minor', 'minor']);
    trim.stop();
  });

  it('gives up on the young generation after YOUNG_COLLECTION_TRIES collections', () => {
    young = 64 * 1024 * 1024;
    const trim = trimWhenIdle(collect, now, youngBytes);
    vi.advanceTimersByTime(QUIET_MS + 500 + 20 * YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['full', ...Array(YOUNG_COLLECTION_TRIES).fill('minor')]);
    trim.stop();
  });
});
