/**
 * A cache bounded by the total weight of its entries (and, if given, by their number): when
 * full, the entries kept longest make room. Used where a request may add entries without end
 * (query texts, resource objects' bytes); a hit does not refresh an entry.
 */
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();
  private weight = 0;

  constructor(
    private readonly weigh: (key: K, value: V) => number,
    private readonly maxWeight: number,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Keeps `value` unless it alone weighs more than the bound. */
  set(key: K, value: V): void {
    const weight = this.weigh(key, value);
    if (weight > this.maxWeight) return;
    const old = this.entries.get(key);
    if (old !== undefined) this.weight -= this.weigh(key, old);
    this.entries.set(key, value);
    this.weight += weight;
    for (const [oldest, kept] of this.entries) {
      if (this.weight <= this.maxWeight && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
      this.weight -= this.weigh(oldest, kept);
    }
  }

  /** The weight of what is kept. */
  get keptWeight(): number {
    return this.weight;
  }
}
