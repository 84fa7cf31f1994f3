/**
 * Throttling of client authentication at the token endpoints (auth.md: "counted per address
 * and per (address, client)").
 *
 * - Per address: attempts that have not proven themselves (failed, or still in flight) are
 *   limited. An attempt counts from the moment it starts, so a burst of simultaneous requests
 *   cannot all pass the check before the first of them fails.
 * - Per (address, client id): failed client authentications are slowed down, then refused.
 *
 * There is deliberately no limit per client id alone: client ids are not secrets (RFC 6749
 * §2.2), and such a limit would let anyone who knows one lock its owner out. Correct
 * credentials from an address that has not misbehaved are never refused. Only a failed client
 * authentication counts as a failure: a client that authenticated and then lost a refresh race
 * (`invalid_grant`) has proven itself.
 *
 * Counts live in the process: each replica counts its own (the checks cost no I/O).
 */
import type { Clock } from '../clock.ts';

export interface ThrottleOptions {
  /** Unproven attempts (failed or in flight) per address and window before refusing with 429. */
  addressLimit: number;
  /** Failed client authentications per (address, client id) and window before refusing with 429. */
  clientLimit: number;
  /** Failures per (address, client id) before answers are delayed. */
  slowAfter: number;
  /** Delay added per failure beyond `slowAfter`, capped at one second. */
  delayStepMs: number;
  windowMs: number;
}

export const DEFAULT_THROTTLE: ThrottleOptions = {
  addressLimit: 30,
  clientLimit: 10,
  slowAfter: 5,
  delayStepMs: 200,
  windowMs: 60_000,
};

/** Bound on remembered keys per map; the oldest window is forgotten first. */
const MAX_TRACKED_KEYS = 10_000;
export const MAX_DELAY_MS = 1000;

interface Window {
  startedAt: number;
  failures: number;
  /** Attempts started and not yet settled. */
  inFlight: number;
}

/** How an admitted attempt ended. */
export type Outcome =
  /** The client proved its secret (whatever the grant's fate). */
  | 'authenticated'
  /** Client authentication failed, or the attempt broke in an unexpected way. */
  | 'failed'
  /** The attempt could not be judged (the database was unavailable): it counts for nothing. */
  | 'abandoned';

export type Admission =
  | { admitted: false; retryAfterSeconds: number }
  | { admitted: true; delayMs: number; settle(outcome: Outcome): void };

export class FailureThrottle {
  private readonly byAddress = new Map<string, Window>();
  private readonly byClient = new Map<string, Window>();

  constructor(
    private readonly clock: Clock,
    private readonly options: ThrottleOptions = DEFAULT_THROTTLE,
  ) {}

  /**
   * Decides on an attempt and, when admitted, counts it at once; the caller must settle it.
   */
  begin(address: string, clientId: string): Admission {
    const now = this.clock.now().getTime();
    const addressWindow = this.window(this.byAddress, address, now);
    const clientKey = `${address}\n${clientId}`;
    const clientWindow = this.byClient.get(clientKey);
    const clientCurrent = clientWindow && !this.expired(clientWindow, now) ? clientWindow : undefined;

    if (clientCurrent && clientCurrent.failures >= this.options.clientLimit) {
      return { admitted: false, retryAfterSeconds: this.secondsLeft(clientCurrent, now) };
    }
    if (addressWindow.failures + addressWindow.inFlight >= this.options.addressLimit) {
      // Refused for attempts still in flight only: those may yet succeed, so try again soon.
      const seconds = addressWindow.failures >= this.options.addressLimit ? this.secondsLeft(addressWindow, now) : 1;
      return { admitted: false, retryAfterSeconds: seconds };
    }

    addressWindow.inFlight += 1;
    const failures = clientCurrent?.failures ?? 0;
    const delayMs = Math.min(MAX_DELAY_MS, Math.max(0, failures - this.options.slowAfter) * this.options.delayStepMs);
    let settled = false;
    return {
      admitted: true,
      delayMs,
      settle: (outcome) => {
        if (settled) return;
        settled = true;
        addressWindow.inFlight -= 1;
        if (outcome === 'failed') {
          addressWindow.failures += 1;
          this.window(this.byClient, clientKey, this.clock.now().getTime()).failures += 1;
        } else if (outcome === 'authenticated') {
          this.byClient.delete(clientKey);
        }
      },
    };
  }

  private expired(window: Window, now: number): boolean {
    return now - window.startedAt >= this.options.windowMs;
  }

  private secondsLeft(window: Window, now: number): number {
    return Math.max(1, Math.ceil((window.startedAt + this.options.windowMs - now) / 1000));
  }

  /** The current window of a key, started afresh when the last one has passed. */
  private window(map: Map<string, Window>, key: string, now: number): Window {
    const existing = map.get(key);
    if (existing && !this.expired(existing, now)) return existing;
    // An expired window may still have attempts in flight; they settle on the old object.
    map.delete(key);
    if (map.size >= MAX_TRACKED_KEYS) map.delete(map.keys().next().value!);
    const fresh = { startedAt: now, failures: 0, inFlight: 0 };
    map.set(key, fresh);
    return fresh;
  }
}
