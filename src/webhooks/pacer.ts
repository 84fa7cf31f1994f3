/**
 * How many webhook calls a replica has in flight, across all its endpoints: fewer while the API
 * is short of room. Calls are work that can wait; the API's requests cannot. When the machine
 * runs short (fifty endpoints each told of hundreds of writes a second), requests start to wait
 * for a slot or the event loop lags; the permits then shrink until neither happens, and the API
 * answers about as fast as without webhooks, while the deliveries wait, in order, and catch up
 * when the load passes. Additive increase, multiplicative decrease, as TCP paces a connection.
 */

/** The lag (ms) above which fewer calls are let in flight. */
const LAG_MS = 20;
const SAMPLE_MS = 100;
const FEWEST = 1;
const STEP = 8;

export class Pacer {
  private permits: number;
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(
    /** Whether the API is short of room now (requests wait for a slot). */
    private readonly busy: () => boolean,
    private readonly most = 256,
  ) {
    this.permits = most;
    let expected = performance.now() + SAMPLE_MS;
    this.timer = setInterval(() => {
      const lag = performance.now() - expected;
      expected = performance.now() + SAMPLE_MS;
      this.permits =
        lag > LAG_MS || this.busy()
          ? Math.max(FEWEST, Math.floor(this.permits * 0.7))
          : Math.min(this.most, this.permits + STEP);
      this.wakeWaiting();
    }, SAMPLE_MS);
    this.timer.unref();
  }

  /** Calls allowed in flight now. */
  get allowed(): number {
    return this.permits;
  }

  /** A permit, when one is free now; else false, and `whenFree` is called with one once one is. */
  take(whenFree: () => void): boolean {
    if (this.inFlight < this.permits) {
      this.inFlight += 1;
      return true;
    }
    this.waiting.push(whenFree);
    return false;
  }

  give(): void {
    this.inFlight -= 1;
    this.wakeWaiting();
  }

  /** Hands free permits to those waiting (each callback holds one: it uses it or gives it back). */
  private wakeWaiting(): void {
    while (this.waiting.length > 0 && this.inFlight < this.permits) {
      this.inFlight += 1;
      this.waiting.shift()!();
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.waiting.length = 0;
  }
}
