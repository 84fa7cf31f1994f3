/**
 * One worker thread of the fan-out case (../fanout.ts): opens its share of the SSE subscriptions
 * (`subscription { changes }` over POST /graphql, `Accept: text/event-stream`), parses each stream
 * as it arrives and stamps every change with the moment its chunk arrived, on the main thread's
 * `performance.now()` clock (the offset between the two threads' clocks is taken from the
 * process's monotonic clock, which every thread shares). Spread over threads because one Node
 * thread cannot parse 1,000 streams at 100 events per second each and also keep time.
 *
 * Messages: main -> worker `{ type: 'open' }`, `{ type: 'mark' }` and `{ type: 'measure' }` (the
 * start and end of the writes, for this thread's busy share), `{ type: 'target', seq }` (the
 * log's last entry: progress counts the open streams that have not reached it), `{ type: 'finish' }`;
 * worker -> main `progress` (every 250 ms), then `result` with the events as transferred typed
 * arrays.
 */
import { Agent, type ClientRequest, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

export interface SseWorkerData {
  /** e.g. http://127.0.0.1:4123 */
  baseUrl: string;
  headers: Record<string, string>;
  /** The JSON body of the subscription request. */
  body: string;
  /** Index of this worker's first subscriber among all of them. */
  first: number;
  count: number;
  /** Subscriptions being opened at once (each waits for its first ping). */
  concurrency: number;
  /** The main thread's `process.hrtime` in ms minus its `performance.now()`, taken at the same moment. */
  mainOffsetMs: number;
}

/** Why a subscriber's stream is over, if it is. */
export interface SubscriberState {
  /** Main-clock ms when the response headers came, and when the first `:` ping came (the stream is open). */
  headersAt?: number;
  openedAt?: number;
  status?: number;
  /** Set when the stream ended before the bench closed it: complete, an error event, a cut connection. */
  endedAt?: number;
  end?: string;
  /** The code of an error event (SUBSCRIBER_BEHIND, TOKEN_EXPIRED, TOO_MANY_SUBSCRIPTIONS, ...). */
  errorCode?: string;
  /** The first error message, shortened. */
  message?: string;
  pings: number;
}

export interface SseWorkerProgress {
  type: 'progress';
  opened: number;
  failed: number;
  events: number;
  ended: number;
  /** Streams open and not ended whose last cursor is below the target (all of them before one is set). */
  behind: number;
}

/** Every `next` event that carried a change, in arrival order (per subscriber: its stream's order). */
export interface SseEvents {
  length: number;
  /** Subscriber index (among all). */
  subscriber: Int32Array;
  id: Int32Array;
  version: Int32Array;
  /** The cursor as a number (the log's sequence). */
  seq: Float64Array;
  /** 1 when the change is of a type other than products, or not an update. */
  other: Uint8Array;
  /** Main-clock ms when the chunk holding it arrived. */
  t: Float64Array;
}

export interface SseWorkerResult {
  type: 'result';
  subscribers: SubscriberState[];
  events: SseEvents;
  /** Event-loop utilisation of this thread between `mark` and `measure` (1 = always busy). */
  elu: number;
  /** Blocks that could not be parsed. */
  parseErrors: number;
}

const data = workerData as SseWorkerData;
const port = parentPort!;
// Times on the main thread's performance.now() clock.
const shift = Number(process.hrtime.bigint()) / 1e6 - performance.now() - data.mainOffsetMs;
const now = () => performance.now() + shift;

class EventLog implements SseEvents {
  length = 0;
  subscriber = new Int32Array(1 << 16);
  id = new Int32Array(1 << 16);
  version = new Int32Array(1 << 16);
  seq = new Float64Array(1 << 16);
  other = new Uint8Array(1 << 16);
  t = new Float64Array(1 << 16);

  push(subscriber: number, id: number, version: number, seq: number, other: boolean, t: number): void {
    if (this.length === this.t.length) this.grow();
    const i = this.length++;
    this.subscriber[i] = subscriber;
    this.id[i] = id;
    this.version[i] = version;
    this.seq[i] = seq;
    this.other[i] = other ? 1 : 0;
    this.t[i] = t;
  }

  private grow(): void {
    const size = this.t.length * 2;
    const grown = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: new (n: number) => T): T => {
      const b = new make(size);
      b.set(a);
      return b;
    };
    this.subscriber = grown(this.subscriber, Int32Array);
    this.id = grown(this.id, Int32Array);
    this.version = grown(this.version, Int32Array);
    this.seq = grown(this.seq, Float64Array);
    this.other = grown(this.other, Uint8Array);
    this.t = grown(this.t, Float64Array);
  }

  /** Trimmed copies (transferable). */
  trimmed(): SseEvents {
    const n = this.length;
    return {
      length: n,
      subscriber: this.subscriber.slice(0, n),
      id: this.id.slice(0, n),
      version: this.version.slice(0, n),
      seq: this.seq.slice(0, n),
      other: this.other.slice(0, n),
      t: this.t.slice(0, n),
    };
  }
}

const events = new EventLog();
const states: SubscriberState[] = Array.from({ length: data.count }, () => ({ pings: 0 }));
const requests: ClientRequest[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: data.count + 8 });
let opened = 0;
let failed = 0;
let ended = 0;
let parseErrors = 0;
let closing = false;
let target = Number.POSITIVE_INFINITY;
/** The last cursor each subscriber received. */
const lastSeq = new Float64Array(data.count);

function fail(state: SubscriberState, end: string, message?: string): void {
  if (state.endedAt !== undefined || closing) return;
  state.endedAt = now();
  state.end = end;
  state.message ??= message?.slice(0, 300);
  ended++;
}

/** One `event:`/`data:` block or comment of a stream. */
function block(index: number, state: SubscriberState, text: string, t: number, onOpen: () => void): void {
  if (text.startsWith(':')) {
    state.pings++;
    if (state.openedAt === undefined) {
      state.openedAt = t;
      opened++;
      onOpen();
    }
    return;
  }
  let event = 'message';
  let payload = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('event:')) event = line.slice(6).trim();
    else if (line.startsWith('data:')) payload += line.slice(line[5] === ' ' ? 6 : 5);
  }
  if (event === 'complete') {
    fail(state, 'complete');
    return;
  }
  if (event !== 'next') return;
  let result: any;
  try {
    result = JSON.parse(payload);
  } catch {
    parseErrors++;
    return;
  }
  const change = result?.data?.changes;
  if (change) {
    const other = change.type !== 'PRODUCTS' || change.op !== 'UPDATED';
    const seq = Number(change.cursor);
    events.push(data.first + index, change.id, change.version, seq, other, t);
    lastSeq[index] = seq;
  } else if (result?.errors?.length) {
    state.errorCode ??= result.errors[0]?.extensions?.code ?? 'ERROR';
    state.message ??= String(result.errors[0]?.message).slice(0, 300);
  }
}

/** Opens subscriber `index`; resolves when its stream is open (first ping) or has failed. */
function subscribe(index: number): Promise<void> {
  const state = states[index]!;
  const url = new URL('/graphql', data.baseUrl);
  return new Promise<void>((resolve) => {
    let settled = false;
    const done = () => {
      if (!settled) {
        settled = true;
        resolve();
      }
    };
    const req = request(url, {
      method: 'POST',
      agent,
      headers: {
        ...data.headers,
        accept: 'text/event-stream',
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(data.body),
      },
    });
    requests.push(req);
    req.on('error', (error) => {
      if (state.openedAt === undefined && !settled) failed++;
      fail(state, 'error', error.message);
      done();
    });
    req.on('response', (res) => {
      state.headersAt = now();
      state.status = res.statusCode;
      const streaming = res.statusCode === 200 && String(res.headers['content-type']).startsWith('text/event-stream');
      res.setEncoding('utf8');
      let pending = '';
      res.on('data', (chunk: string) => {
        const t = now();
        pending += chunk;
        if (!streaming) return;
        let start = 0;
        for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n', start)) {
          block(index, state, pending.slice(start, end), t, done);
          start = end + 2;
        }
        if (start > 0) pending = pending.slice(start);
      });
      res.on('end', () => {
        if (!streaming) {
          failed++;
          fail(state, `status ${res.statusCode}`, pending);
        } else {
          if (state.openedAt === undefined) failed++;
          fail(state, state.errorCode ? 'error event' : 'stream ended');
        }
        done();
      });
      res.on('error', () => undefined);
    });
    req.end(data.body);
  });
}

async function openAll(): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < data.count) await subscribe(next++);
  };
  await Promise.all(Array.from({ length: Math.min(data.concurrency, data.count) }, lane));
}

function behind(): number {
  let n = 0;
  for (let i = 0; i < data.count; i++)
    if (states[i]!.openedAt !== undefined && states[i]!.endedAt === undefined && lastSeq[i]! < target) n++;
  return n;
}

const progress = setInterval(() => {
  port.postMessage({
    type: 'progress',
    opened,
    failed,
    events: events.length,
    ended,
    behind: behind(),
  } satisfies SseWorkerProgress);
}, 250);

let marked = performance.eventLoopUtilization();
let measured: number | undefined;

port.on('message', (message: { type: 'open' | 'mark' | 'measure' | 'target' | 'finish'; seq?: number }) => {
  if (message.type === 'open') void openAll();
  else if (message.type === 'target') target = message.seq!;
  else if (message.type === 'mark') marked = performance.eventLoopUtilization();
  else if (message.type === 'measure') measured = performance.eventLoopUtilization(marked).utilization;
  else if (message.type === 'finish') {
    const elu = measured ?? performance.eventLoopUtilization(marked).utilization;
    closing = true;
    clearInterval(progress);
    for (const req of requests) req.destroy();
    agent.destroy();
    const result: SseWorkerResult = {
      type: 'result',
      subscribers: states,
      events: events.trimmed(),
      elu,
      parseErrors,
    };
    const e = result.events;
    port.postMessage(result, [
      e.subscriber.buffer,
      e.id.buffer,
      e.version.buffer,
      e.seq.buffer,
      e.other.buffer,
      e.t.buffer,
    ] as ArrayBuffer[]);
    port.close();
  }
});
