/** A small seeded pseudo-random generator (mulberry32), for tests that replay a run from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
    /** A decimal with at most 2 places, from 0.01 to max. */
    amount: (max: number) => Math.max(1, Math.round(next() * max * 100)) / 100,
  };
}

export type Prng = ReturnType<typeof prng>;
