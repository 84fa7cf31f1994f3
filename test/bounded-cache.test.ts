/** The cache behind remembered query texts and REST's kept resource bytes (src/bounded-cache.ts). */
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../src/bounded-cache.ts';

describe('BoundedCache', () => {
  it('keeps within its weight and its number of entries, the oldest making room; a value heavier than the bound is not kept', () => {
    const cache = new BoundedCache<string, string>((_, value) => value.length, 10, 3);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, 'xx');
    expect(['a', 'b', 'c', 'd'].map((k) => cache.get(k))).toEqual([undefined, 'xx', 'xx', 'xx']);
    cache.set('e', 'yyyyyyyy');
    expect(cache.keptWeight).toBeLessThanOrEqual(10);
    expect(cache.get('e')).toBe('yyyyyyyy');
    cache.set('f', 'z'.repeat(11));
    expect(cache.get('f')).toBeUndefined();
  });

  it('counts a key set again once', () => {
    const cache = new BoundedCache<string, string>((_, value) => value.length, 100);
    cache.set('a', 'xxxx');
    cache.set('a', 'xx');
    expect(cache.keptWeight).toBe(2);
  });
});
