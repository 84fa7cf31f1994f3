/**
 * Progress of the data tools (`npm run export`, and the imports to come): a bar per type with its
 * rows, rate and time left, on a terminal only (a pipe or a log gets the summary alone).
 */
import cliProgress from 'cli-progress';

/** Told how far a type is: rows done so far of `total` (0 first, when it starts). */
export type Progress = (type: string, rows: number, total: number) => void;

export interface ProgressBars {
  update: Progress;
  stop(): void;
}

export function progressBars(show: boolean): ProgressBars {
  if (!show) return { update: () => {}, stop: () => {} };
  const bars = new cliProgress.MultiBar(
    {
      format: '{type} [{bar}] {value}/{total} rows | {rate} rows/s | ETA {eta_formatted}',
      hideCursor: true,
      clearOnComplete: false,
      stream: process.stderr,
    },
    cliProgress.Presets.shades_classic,
  );
  const byType = new Map<string, { bar: cliProgress.SingleBar; started: number }>();
  const width = 28;
  return {
    update(type, rows, total) {
      let entry = byType.get(type);
      if (!entry) {
        entry = { bar: bars.create(total, 0, { type: type.padEnd(width), rate: '0' }), started: Date.now() };
        byType.set(type, entry);
      }
      const seconds = (Date.now() - entry.started) / 1000;
      entry.bar.update(rows, { type: type.padEnd(width), rate: seconds > 0 ? Math.round(rows / seconds) : 0 });
    },
    stop: () => bars.stop(),
  };
}
