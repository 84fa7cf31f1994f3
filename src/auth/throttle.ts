/**
 * Throttling of repeated authentication failures at the token endpoints, per remote address and
 * per client id: after a few failures answers are slowed down, after more they are refused with
 * 429 until the window has passed. In-process: each replica counts its own.
 */
import type { Clock } from '../clock.ts';

export interface ThrottleOptions {
  /** Failures within the window before answers are delayed. */
  slowAfter: number;
  /** Failures within the window before requests are refused. */
  blockAfter: number;
  windowMs: number;
  /** Delay added per failure beyond `slowAfter`, capped at one second. */
  delayStepMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = { slowAfter: 5, blockAfter: 10, windowMs: 60_000, delayStepMs: 200 };
const MAX_TRACKED_KEYS = 10_000;

interface Window {
  failures: number;
  startedAt: number;
}

export class FailureThrottle {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  private current(key: string): Window | undefined {
    const window = this.windows.get(key);
    if (window && this.clock.now().getTime() - window.startedAt >= this.options.windowMs) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  /** Seconds until the caller may try again, or 0 when not blocked. */
  retryAfter(keys: string[]): number {
    let seconds = 0;
    for (const key of keys) {
      const window = this.current(key);
      if (window && window.failures >= this.options.blockAfter) {
        const left = window.startedAt + this.options.windowMs - this.clock.now().getTime();
        seconds = Math.max(seconds, Math.ceil(left / 1000));
      }
    }
    return seconds;
  }

  /** How long to hold an answer back for these keys. */
  delayMs(keys: string[]): number {
    const failures = Math.max(0, ...keys.map((k) => this.current(k)?.failures ?? 0));
    return Math.min(1000, Math.max(0, failures - this.options.slowAfter) * this.options.delayStepMs);
  }

  fail(keys: string[]): void {
    for (const key of keys) {
      const window = this.current(key);
      if (window) window.failures += 1;
      else {
        if (this.windows.size >= MAX_TRACKED_KEYS) this.windows.delete(this.windows.keys().next().value!);
        this.windows.set(key, { failures: 1, startedAt: this.clock.now().getTime() });
      }
    }
  }

  succeed(keys: string[]): void {
    for (const key of keys) this.windows.delete(key);
  }
}
