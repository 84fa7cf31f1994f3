/**
 * The run's results: one record per (dataset, case, target), printed as a table, written as JSON
 * and drawn as an SVG chart (hand-written: one row of bars per case, each row scaled to its own
 * fastest target, since W0 and W2 differ by two orders of magnitude).
 */
import type { WebhookScenario } from './webhooks.ts';
import type { AsOfReport } from './as-of.ts';
import type { DataInResult } from './data-in.ts';
import type { Distribution, FanoutResult } from './fanout.ts';
import type { RunResult } from './load.ts';
import type { IdleMemory } from './servers.ts';
import type { TargetName } from './targets.ts';

export interface Measurement {
  dataset: string;
  case: string;
  title: string;
  target: TargetName;
  /**
   * verified (answers checked, not timed: --verify-only); measured; skipped (the case does not
   * apply to the target); failed (verification or a run failed).
   */
  status: 'verified' | 'measured' | 'skipped' | 'failed';
  reason?: string;
  /** Size of one answer, bytes. */
  responseBytes?: number;
  /** Statements per request, exact: sequential requests, counter delta / requests. */
  statementsPerRequest?: number;
  rounds: RunResult[];
  /** Medians over the rounds (peak RSS: the maximum); errors: summed. */
  summary?: {
    rps: number;
    mean: number;
    p50: number;
    p99: number;
    errors: number;
    statementsPerRequestUnderLoad: number;
    peakRssMb: number | undefined;
    /** The server's CPU time per request, µs (median over the rounds). */
    cpuUsPerRequest: number | undefined;
  };
  /** Our median req/s over the peer's on the same dataset and case (> 1: we are faster). */
  ratioToPeer?: number;
  /** W5: our median req/s over the peer's given our guarantees by triggers (lib/peer-trigger.ts). */
  ratioToTriggerPeer?: number;
  /**
   * W5 through our server, over all of the case's requests (verification, probe, warm-up, rounds):
   * the entries the change log gained, and the writes the server answered with success by its own
   * count (requests still in flight when autocannon stopped included). One entry per product
   * update: the two are equal when the log records every write.
   */
  changeLog?: { entries: number; writesAnswered: number };
}

/** One of the benchmark issue's targets, checked on a run. */
export interface Goal {
  goal: string;
  met: boolean;
  detail: string;
}

export interface Report {
  meta: Record<string, unknown>;
  goals?: Goal[];
  datasets: {
    id: string;
    provider: string;
    scale: number;
    database: string;
    cases: { key: string; title: string; params: unknown }[];
  }[];
  measurements: Measurement[];
  /** The fan-out case (SSE subscribers while writes arrive), when it ran or failed. */
  fanout?: FanoutReport;
  /** Data coming in (bulk upserts against COPY, an import from our server), when it ran or failed. */
  dataIn?: DataInReport;
  webhooks?: WebhooksReport;
  /** W2 as of a day before against now, and W5 with and without the row history (lib/as-of.ts). */
  asOf?: AsOfReport;
  /** Our compiled server at rest on the embedded default. */
  idle?: IdleMemory;
}

export type FanoutReport = ({ status: 'measured' } & FanoutResult) | { status: 'failed'; reason: string };

export type WebhooksReport =
  | { status: 'measured'; scenarios: WebhookScenario[] }
  | { status: 'failed'; reason: string };

export type DataInReport = ({ status: 'measured' } & DataInResult) | { status: 'failed'; reason: string };

const fmt = (value: number | undefined, digits = 0) =>
  value === undefined || Number.isNaN(value)
    ? '-'
    : value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** Fixed-width text table, one line per measurement. */
export function formatTable(measurements: Measurement[]): string {
  const header = [
    'dataset',
    'case',
    'target',
    'req/s',
    'mean ms',
    'p50 ms',
    'p99 ms',
    'errors',
    'stmts/req',
    'peak RSS MB',
    'CPU µs/req',
    'KB/resp',
    'vs peer',
  ];
  const rows = measurements.map((m) => {
    if (m.status === 'skipped' || m.status === 'failed')
      return [m.dataset, m.case, m.target, `${m.status}: ${m.reason ?? ''}`];
    const s = m.summary;
    const stmts = m.statementsPerRequest;
    return [
      m.dataset,
      m.case,
      m.target,
      fmt(s?.rps, s && s.rps < 100 ? 1 : 0),
      fmt(s?.mean, 2),
      fmt(s?.p50, 1),
      fmt(s?.p99, 1),
      fmt(s?.errors),
      fmt(stmts, stmts !== undefined && Number.isInteger(stmts) ? 0 : 2),
      fmt(s?.peakRssMb),
      fmt(s?.cpuUsPerRequest),
      fmt(m.responseBytes === undefined ? undefined : m.responseBytes / 1024, 1),
      m.ratioToPeer === undefined ? '' : `${m.ratioToPeer.toFixed(2)}x`,
    ];
  });
  // Status rows (skipped, failed) hold a reason in the fourth cell: it does not size that column.
  const widths = header.map((h, i) =>
    Math.max(h.length, ...rows.filter((r) => i < 3 || r.length > 4).map((r) => (r[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.length <= 4
      ? cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c)).join('  ')
      : cells.map((c, i) => (i < 3 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const COLOURS: Record<TargetName, string> = {
  postgraphile: '#7a7a7a',
  'postgraphile+trigger': '#b0b0b0',
  graphql: '#2f6db5',
  rest: '#d9822b',
  'graphql+role': '#1d4a80',
  'graphql#id': '#5a9be0',
  'rest+role': '#a35a14',
  'graphql@base': '#9bb8dc',
  'rest@base': '#ecc195',
};

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** Grouped horizontal bars: one group per (dataset, case), one bar per measured target. */
export function renderSvg(report: Report, subtitle: string): string {
  const measured = report.measurements.filter((m) => m.status === 'measured' && m.summary);
  const groups = new Map<string, Measurement[]>();
  for (const m of measured) {
    const key = `${m.dataset} ${m.case}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  const width = 1100;
  const labelWidth = 240;
  const barMax = 280;
  const textX = labelWidth + barMax + 10;
  const barHeight = 16;
  const gap = 4;
  const groupGap = 18;
  let y = 78;
  const parts: string[] = [];
  for (const [key, members] of groups) {
    const top = y;
    const best = Math.max(...members.map((m) => m.summary!.rps));
    parts.push(`<text x="12" y="${top + 12}" class="group">${escapeXml(key)}</text>`);
    // The workload's title, wrapped into lines of about 38 characters.
    const words = members[0]!.title.split(' ');
    const lines: string[] = [''];
    for (const word of words) {
      if (`${lines.at(-1)} ${word}`.trim().length > 38) lines.push(word);
      else lines[lines.length - 1] = `${lines.at(-1)} ${word}`.trim();
    }
    for (const [i, line] of lines.entries())
      parts.push(`<text x="12" y="${top + 27 + i * 13}" class="title">${escapeXml(line)}</text>`);
    for (const m of members) {
      const s = m.summary!;
      const length = Math.max(1, (s.rps / best) * barMax);
      const stmts =
        m.statementsPerRequest === undefined
          ? ''
          : `, ${fmt(m.statementsPerRequest, Number.isInteger(m.statementsPerRequest) ? 0 : 2)} stmt/req`;
      const ratio = m.ratioToPeer === undefined ? '' : `, ${m.ratioToPeer.toFixed(2)}x peer`;
      const rss = s.peakRssMb === undefined ? '' : `, ${fmt(s.peakRssMb)} MB`;
      const label = `${m.target}: ${fmt(s.rps, s.rps < 100 ? 1 : 0)} req/s, p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms${stmts}${rss}${ratio}${s.errors ? `, ${s.errors} errors` : ''}`;
      parts.push(
        `<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${barHeight}" fill="${COLOURS[m.target]}"/>`,
      );
      parts.push(`<text x="${textX}" y="${y + 12}">${escapeXml(label)}</text>`);
      y += barHeight + gap;
    }
    y = Math.max(y, top + 27 + lines.length * 13) + groupGap;
  }
  const legend = (Object.keys(COLOURS) as TargetName[])
    .filter((t) => measured.some((m) => m.target === t))
    .map(
      (t, i) =>
        `<rect x="${12 + i * 140}" y="48" width="12" height="12" fill="${COLOURS[t]}"/><text x="${30 + i * 140}" y="58">${t}</text>`,
    )
    .join('');
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`,
    '<style>.group{font-weight:bold;font-size:12px}.title{fill:#555}.head{font-size:15px;font-weight:bold}</style>',
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="12" y="22" class="head">Throughput per workload (bars scaled to the fastest target of each row)</text>`,
    `<text x="12" y="38" class="title">${escapeXml(subtitle)}</text>`,
    legend,
    ...parts,
    '</svg>',
  ].join('\n');
}

const ms = (value: number) => (Number.isNaN(value) ? '-' : Math.abs(value) < 10 ? value.toFixed(1) : fmt(value));
const spread = (d: Distribution) => `p50 ${ms(d.p50)} ms, p99 ${ms(d.p99)} ms, max ${ms(d.max)} ms`;
const counts = (record: Record<string, number>) =>
  Object.entries(record)
    .map(([reason, n]) => `${fmt(n)} ${reason}`)
    .join(', ') || 'none';

/** The fan-out case as a few labelled lines. */
export function formatFanout(report: FanoutReport): string {
  if (report.status === 'failed') return `Fan-out (SSE): FAILED ${report.reason}`;
  const { subscribers: s, writes: w, delivery: d, server, loadGenerator: g, machine, options: o } = report;
  const mb = (v: number | undefined) => (v === undefined ? '-' : `${fmt(v)} MB`);
  const cores = (v: number | undefined) => (v === undefined ? '-' : v.toFixed(2));
  const pct = (v: number) => `${Math.round(v * 100)}%`;
  const rows: [string, string][] = [
    [
      'subscribers',
      `${fmt(s.open)} of ${fmt(s.requested)} open in ${s.openSeconds.toFixed(1)} s over ${o.workers} worker threads; not open: ${counts(s.notOpen)}; ended while running: ${counts(s.endedEarly)}`,
    ],
    [
      'writes',
      `${fmt(w.sent)} sent (${w.sendRate.toFixed(1)}/s, the latest ${ms(w.maxSendLagMs)} ms after its slot): ${fmt(w.acked)} acknowledged before the log was read back (${fmt(w.answeredLate)} after it), ${fmt(w.errors)} errors (${counts(w.errorKinds)}; ${fmt(w.committedDespiteError)} of them in the log all the same), ${fmt(w.unanswered)} unanswered (${fmt(w.committedUnanswered)} in the log); acknowledged but not in the log: ${fmt(w.ackedNotLogged)}`,
    ],
    ['write answers', spread(w.ack)],
    [
      'delivered',
      `${fmt(d.delivered)} of ${fmt(d.expected)} (subscriber, log entry) pairs (${fmt(d.logEntries)} entries); missing ${fmt(d.missing)} (${fmt(d.missingOnEndedStreams)} on streams that ended); subscribers with every entry ${fmt(d.subscribersComplete)}; duplicates ${fmt(d.duplicates)}, out of order ${fmt(d.outOfOrder)}, unlike the log ${fmt(d.mismatched)}, unknown cursors ${fmt(d.unknown)}, after the last entry read ${fmt(d.afterLastEntry)}; ${d.caughtUp ? 'every open stream reached the last entry' : 'NOT every open stream reached the last entry'}, the last delivery ${d.drainSeconds.toFixed(2)} s after the last answer`,
    ],
    ['delay from ack', `${spread(report.delayFromAck)}, min ${ms(report.delayFromAck.min)} ms`],
    ['delay from send', spread(report.delayFromSend)],
    [
      'p99 by second',
      `${report.delayBySecond.map((b) => ms(b.p99)).join(' ')} ms (from ack, by the second each write was sent in)`,
    ],
    [
      'server',
      `RSS ${mb(server.rssBeforeMb)} before subscribers, ${mb(server.rssOpenMb)} with them open, ${mb(server.rssAfterWritesMb)} after the writes, peak ${mb(server.peakRssMb)}; V8 heap in use ${mb(server.heapUsedMb.before)} / ${mb(server.heapUsedMb.open)} / ${mb(server.heapUsedMb.afterWrites)}; CPU ${cores(server.cpuCores)} cores over the ${report.writeSeconds.toFixed(1)} s from the first write to the last answer, ${server.cpuMicrosPerDelivery === undefined ? '-' : fmt(server.cpuMicrosPerDelivery)} µs per delivery (${server.openCpuSeconds?.toFixed(1) ?? '-'} s to open the streams)`,
    ],
    ['PostgreSQL', `${cores(report.postgresCpuCores)} cores (this database's backends)`],
    [
      'load generator',
      `${cores(g.cpuCores)} cores; busy: main thread ${pct(g.mainThreadBusy)}, workers ${g.workerBusy.map(pct).join(' / ')}`,
    ],
    [
      'machine',
      `${cores(machine.busyCores)} of ${machine.cores} cores busy, ${cores(machine.otherCores)} of them other processes'; load average ${machine.loadAverage.before[0]?.toFixed(2)} before, ${machine.loadAverage.after[0]?.toFixed(2)} after`,
    ],
  ];
  if (s.firstEnd)
    rows.push([
      'first end',
      `subscriber ${s.firstEnd.subscriber} at ${s.firstEnd.atS.toFixed(1)} s: ${s.firstEnd.code ?? s.firstEnd.end}${s.firstEnd.message ? ` (${s.firstEnd.message})` : ''}`,
    ]);
  if (w.errorSamples.length) rows.push(['write errors', w.errorSamples.join(' | ')]);
  const width = Math.max(...rows.map(([label]) => label.length));
  const head = `Fan-out (SSE): ${report.dataset}, ${fmt(o.subscribers)} subscribers of \`${report.subscription}\`, REST PATCH writes at ${fmt(o.rate)}/s for ${fmt(o.duration)} s (open-loop)`;
  return [head, ...rows.map(([label, text]) => `  ${label.padEnd(width)}  ${text}`)].join('\n');
}
