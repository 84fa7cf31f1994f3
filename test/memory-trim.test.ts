/**
 * When the server gives memory back (src/observability/memory.ts): one full collection once it is
 * quiet after start-up or a burst, one young-generation collection after a further quiet spell,
 * nothing while requests keep coming. Time is the test's; what it measures on memory is in the
 * benchmark (bench/README.md, "At rest").
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QUIET_MS, trimWhenIdle, YOUNG_COLLECTION_DELAY_MS } from '../src/observability/memory.ts';

describe('trimWhenIdle', () => {
  let collections: string[];
  const collect = (options?: { type: 'major' | 'minor' }) => void collections.push(options?.type ?? 'major');
  const now = () => Date.now();

  beforeEach(() => {
    vi.useFakeTimers();
    collections = [];
  });
  afterEach(() => vi.useRealTimers());

  it('collects once start-up is over, then the young generation after a further quiet spell, then nothing', () => {
    const trim = trimWhenIdle(collect, now);
    vi.advanceTimersByTime(QUIET_MS - 500);
    expect(collections).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(collections).toEqual(['major']);
    vi.advanceTimersByTime(YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['major', 'minor']);
    vi.advanceTimersByTime(60_000);
    expect(collections).toEqual(['major', 'minor']);
    trim.stop();
  });

  it('waits while requests keep coming, and trims again after the next burst', () => {
    const trim = trimWhenIdle(collect, now);
    for (let i = 0; i < 20; i++) {
      trim.activity();
      vi.advanceTimersByTime(QUIET_MS / 2);
    }
    expect(collections).toEqual([]);
    vi.advanceTimersByTime(QUIET_MS + YOUNG_COLLECTION_DELAY_MS);
    expect(collections).toEqual(['major', 'minor']);
    trim.activity();
    vi.advanceTimersByTime(QUIET_MS + 500);
    expect(collections).toEqual(['major', 'minor', 'major']);
    trim.stop();
  });

  it('leaves the young generation alone when a request arrives after the full collection', () => {
    const trim = trimWhenIdle(collect, now);
    vi.advanceTimersByTime(QUIET_MS + 500);
    expect(collections).toEqual(['major']);
    vi.advanceTimersByTime(1000);
    trim.activity();
    vi.advanceTimersByTime(YOUNG_COLLECTION_DELAY_MS);
    // The burst that began ended a quiet spell ago: a full collection for it, not the young one.
    expect(collections).toEqual(['major', 'major']);
    trim.stop();
  });

  it('schedules nothing without --expose-gc', () => {
    const trim = trimWhenIdle(undefined, now);
    expect(vi.getTimerCount()).toBe(0);
    trim.activity();
    trim.stop();
  });
});
