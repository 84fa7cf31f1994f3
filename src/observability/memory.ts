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
import { getHeapSpaceStatistics } from 'node:v8';

/** How long without a request before the server counts as quiet. */
export const QUIET_MS = 1000;
/**
 * After start-up's trim, how long without a request before a burst's garbage is collected. Not a
 * second: the full collection leaves V8's heap limits at the live size, and the next seconds of
 * load pay for growing them again (bench W5 with a 5 s pause before each round, paired: 864-967
 * µs of CPU a GraphQL write with a trim after each second of quiet, 565-808 without). Traffic that
 * stops for half a minute has ended; a pause between bursts has not.
 */
export const QUIET_AFTER_BURST_MS = 30_000;
/** After the full collection, how long (still quiet) before the young-generation collection. */
export const YOUNG_COLLECTION_DELAY_MS = 5500;
/** After a young-generation collection V8 did not shrink it, how long before the next. */
export const YOUNG_RETRY_MS = 1000;
/** Young-generation collections tried until V8 shrinks it. */
export const YOUNG_COLLECTION_TRIES = 4;
/** A young generation at most this large has been shrunk (V8's smallest is 1-2 MB). */
export const SHRUNK_BYTES = 8 * 1024 * 1024;
/** How often the quiet is checked. */
const CHECK_INTERVAL_MS = 500;

type CollectGarbage = (options?: { type: 'minor' }) => void;

export interface IdleTrim {
  /** A request arrived. */
  activity(): void;
  stop(): void;
}

/** The young generation's size: what V8 holds for it, used or not. */
function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/** V8's `gc`, there under `--expose-gc`. */
export const exposedGc = (globalThis as { gc?: CollectGarbage }).gc;

/** Starts watching for quiet; `collect` undefined (no `--expose-gc`): nothing to do. */
export function trimWhenIdle(
  collect: CollectGarbage | undefined,
  now: () => number = () => performance.now(),
  youngGenerationBytes: () => number = newSpaceBytes,
): IdleTrim {
  if (!collect) return { activity() {}, stop() {} };
  let lastActivity = now();
  // Start-up counts as a burst: it leaves the most garbage of all, and is trimmed a second after.
  let busySinceTrim = true;
  let quietNeeded = QUIET_MS;
  let fullCollectionAt: number | undefined;
  let youngCollectionsLeft = 0;

  const check = () => {
    const quietFor = now() - lastActivity;
    if (busySinceTrim && quietFor >= quietNeeded) {
      collect();
      busySinceTrim = false;
      quietNeeded = QUIET_AFTER_BURST_MS;
      fullCollectionAt = now();
      youngCollectionsLeft = YOUNG_COLLECTION_TRIES;
    } else if (fullCollectionAt !== undefined && now() - fullCollectionAt >= YOUNG_COLLECTION_DELAY_MS) {
      // Only if nothing arrived since the full collection: otherwise the rate is not low, and the
      // next quiet starts over.
      if (lastActivity > fullCollectionAt) fullCollectionAt = undefined;
      else {
        collect({ type: 'minor' });
        // V8 shrinks only when the rate it measured over its window was low; the background work
        // of an idle server (the scheduler's look every 250 ms, the feed's numbering) sometimes
        // makes it miss (often the first after start-up), and the young generation then
        // stayed at its largest (32-64 MB). Again a second later, when V8's window is still low.
        youngCollectionsLeft -= 1;
        fullCollectionAt =
          youngGenerationBytes() > SHRUNK_BYTES && youngCollectionsLeft > 0
            ? now() - YOUNG_COLLECTION_DELAY_MS + YOUNG_RETRY_MS
            : undefined;
      }
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
