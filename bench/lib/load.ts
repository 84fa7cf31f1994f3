/**
 * One timed run: autocannon (as a library, in this process) against one server with one request,
 * or a new one for every request sent (W5's updates), plus what the server did meanwhile: SQL
 * statements (delta of db_statements_total) and peak RSS.
 */
import autocannon from 'autocannon';
import type { HttpRequest } from './targets.ts';
import { cpuTimes, statementCount, watchMemory, type RunningServer } from './servers.ts';

/** The same request every time (reads), or a function making each one (writes: each changes something). */
export type Requests = HttpRequest | (() => HttpRequest);

export interface LoadOptions {
  server: RunningServer;
  request: Requests;
  connections: number;
  /** Seconds. */
  duration: number;
  bodyOk?: (body: string) => boolean;
}

export interface RunResult {
  /** Responses received. */
  requests: number;
  durationS: number;
  rps: number;
  /** Mean latency, ms (autocannon's average: finer than the whole-ms percentiles). */
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  /** Connection errors and timeouts, non-2xx responses, and bodies that failed the body check. */
  errors: number;
  non2xx: number;
  mismatches: number;
  /** db_statements_total delta / requests sent (in-flight requests included, see timedRun). */
  statementsPerRequest: number;
  /** MB; undefined where /proc cannot be read. */
  peakRssMb: number | undefined;
  /**
   * The server's CPU time (user + system) per request sent, µs: steadier than req/s on a shared
   * machine, since it does not count the time the server waited for a core; undefined where
   * /proc cannot be read.
   */
  cpuUsPerRequest: number | undefined;
  /** Of cpuUsPerRequest, the part spent in the kernel (system calls). */
  systemCpuUsPerRequest: number | undefined;
}

export async function timedRun({ server, request, connections, duration, bodyOk }: LoadOptions): Promise<RunResult> {
  const statementsBefore = await statementCount(server);
  const memory = watchMemory(server.pid);
  const cpuBefore = cpuTimes(server.pid);
  const result = await autocannon({
    connections,
    duration,
    // A fixed request is built once; setupRequest builds one per request sent.
    ...(typeof request === 'function'
      ? { url: server.baseUrl, requests: [{ setupRequest: (defaults) => ({ ...defaults, ...request() }) }] }
      : {
          url: `${server.baseUrl}${request.path}`,
          method: request.method,
          headers: request.headers,
          body: request.body,
        }),
    // Body checks are only for GraphQL (see Target.bodyOk).
    ...(bodyOk ? { verifyBody: (body: string | Buffer | undefined) => bodyOk(String(body ?? '')) } : {}),
  });
  const peakRssMb = memory.stop();
  // Requests still in flight when autocannon stops are sent but never counted as responses; the
  // server finishes them anyway. Wait for the counter to settle and divide by requests sent.
  let statementsAfter = await statementCount(server);
  for (let settled = false, tries = 0; !settled && tries < 50; tries++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await statementCount(server);
    settled = now === statementsAfter;
    statementsAfter = now;
  }
  const cpuAfter = cpuTimes(server.pid);
  const requests = result.requests.total;
  const sent = result.requests.sent;
  return {
    requests,
    durationS: result.duration,
    rps: requests / result.duration,
    mean: result.latency.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.mismatches,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    statementsPerRequest: sent > 0 ? (statementsAfter - statementsBefore) / sent : 0,
    peakRssMb,
    ...cpuPerRequest(cpuBefore, cpuAfter, sent),
  };
}

/** The server's CPU time over a run per request sent, µs, in all and in the kernel. */
function cpuPerRequest(
  before: ReturnType<typeof cpuTimes>,
  after: ReturnType<typeof cpuTimes>,
  sent: number,
): Pick<RunResult, 'cpuUsPerRequest' | 'systemCpuUsPerRequest'> {
  if (!before || !after || sent === 0) return { cpuUsPerRequest: undefined, systemCpuUsPerRequest: undefined };
  const system = after.system - before.system;
  return {
    cpuUsPerRequest: ((after.user - before.user + system) * 1e6) / sent,
    systemCpuUsPerRequest: (system * 1e6) / sent,
  };
}

export interface FetchedAnswer {
  status: number;
  bytes: number;
  body: unknown;
  text: string;
}

export async function fetchOnce(server: RunningServer, request: HttpRequest): Promise<FetchedAnswer> {
  const res = await fetch(`${server.baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, bytes: Buffer.byteLength(text), body, text };
}

/**
 * Statements per request measured exactly: `count` requests one after another, nothing else
 * running, each request's own delta of the counter; the count most of them sent (the fewer on a
 * tie). Not the mean: the server re-checks a bearer token against the database every 5 s
 * (src/auth/tokens.ts), and a probe of slow requests (W2/100's, 0.3 s each) then counted one
 * statement more for one of its ten requests (7.1). A statement that every request sends shows in
 * every delta.
 */
export async function statementProbe(server: RunningServer, request: Requests, count: number): Promise<number> {
  const deltas: number[] = [];
  for (let i = 0; i < count; i++) {
    const before = await statementCount(server);
    const answer = await fetchOnce(server, typeof request === 'function' ? request() : request);
    if (answer.status < 200 || answer.status > 299) throw new Error(`statement probe: status ${answer.status}`);
    deltas.push((await statementCount(server)) - before);
  }
  return mostCommon(deltas);
}

/** The value found most often (the smaller of two found as often). */
function mostCommon(values: number[]): number {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].sort(([a, countA], [b, countB]) => countB - countA || a - b)[0]![0];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
