/**
 * Gives memory back to the system when the server goes quiet: after start-up, and after each
 * burst of requests.
 *
 * Why: V8 keeps the heap it grew under load (the young generation at its largest, the old
 * generation's free pages) until its memory reducer runs, and that reducer waits for an
 * allocation rate it measures only at collections: an idle server makes none, so it went on
 * holding 145-160 MB at rest for 10-20 s after start, 120 MB after. Measured with `--trace-gc`:
 * one full collection once the server is quiet frees the garbage of the burst; a young-generation
 * collection at least 5 s later (V8's window for the allocation rate) finds the rate low and
 * shrinks the young generation (64 MB of semi-spaces with `--max-semi-space-size=32` back to a
 * few), and starts the memory reducer.
 *
 * It needs `--expose-gc` (`npm start` gives it); without it nothing is scheduled.
 */

/** How long without a request before the server counts as quiet. */
export const QUIET_MS = 1000;
/** After the full collection, how long (still quiet) before the young-generation collection. */
export const YOUNG_COLLECTION_DELAY_MS = 5500;
/** How often the quiet is checked. */
const CHECK_INTERVAL_MS = 500;

type CollectGarbage = (options?: { type: 'major' | 'minor' }) => void;

export interface IdleTrim {
  /** A request arrived. */
  activity(): void;
  stop(): void;
}

/** V8's `gc`, there under `--expose-gc`. */
export const exposedGc = (globalThis as { gc?: CollectGarbage }).gc;

/** Starts watching for quiet; `collect` undefined (no `--expose-gc`): nothing to do. */
export function trimWhenIdle(
  collect: CollectGarbage | undefined,
  now: () => number = () => performance.now(),
): IdleTrim {
  if (!collect) return { activity() {}, stop() {} };
  let lastActivity = now();
  // Start-up counts as a burst: it leaves the most garbage of all.
  let busySinceTrim = true;
  let fullCollectionAt: number | undefined;

  const check = () => {
    const quietFor = now() - lastActivity;
    if (busySinceTrim && quietFor >= QUIET_MS) {
      collect({ type: 'major' });
      busySinceTrim = false;
      fullCollectionAt = now();
    } else if (fullCollectionAt !== undefined && now() - fullCollectionAt >= YOUNG_COLLECTION_DELAY_MS) {
      // Only if nothing arrived since the full collection: otherwise the rate is not low, and the
      // next quiet starts over.
      if (lastActivity <= fullCollectionAt) collect({ type: 'minor' });
      fullCollectionAt = undefined;
    }
  };
  const timer = setInterval(check, CHECK_INTERVAL_MS);
  timer.unref();

  return {
    activity() {
      lastActivity = now();
      busySinceTrim = true;
    },
    stop() {
      clearInterval(timer);
    },
  };
}
