/**
 * The floor of the WEBHOOKS fan-out (./webhooks.ts): what the machine allows a webhook sender,
 * measured in the same run and against the same receivers (the same worker threads, the same 50
 * endpoints' URLs and `webhook-id`s) as our deliveries. A worker thread of the bench process (one
 * event loop, as our server has) sends pre-built signed calls, of the size and with the headers
 * of one of our deliveries, as fast as it can for a fixed time: no database, no change log, no
 * bookkeeping; each endpoint has its own connections and keeps `connections x pipelining` calls
 * in flight (closed loop: a call goes as soon as one comes back).
 *
 * Several clients are tried (FLOOR_CLIENTS), each for the same time; the floor is the fastest.
 * The rate is counted by the receivers (calls answered per second between the first and the last
 * call of the try), as ours is.
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { type Dispatcher, Pool } from 'undici';
import type { ReceiverSample } from './webhook-receiver.ts';

export interface FloorClient {
  name: string;
  kind: 'undici' | 'node-http';
  /** Connections per endpoint. */
  connections: number;
  /** Calls on one connection before the first is answered (HTTP/1.1 pipelining; 1: none). */
  pipelining: number;
}

/** The clients tried: calls in flight per endpoint 16 each (our WEBHOOKS_CONCURRENCY). */
export const FLOOR_CLIENTS: FloorClient[] = [
  { name: 'undici Pool.dispatch, 16 connections', kind: 'undici', connections: 16, pipelining: 1 },
  { name: 'undici Pool.dispatch, 4 connections x pipelining 4', kind: 'undici', connections: 4, pipelining: 4 },
  { name: 'undici Pool.dispatch, 1 connection x pipelining 16', kind: 'undici', connections: 1, pipelining: 16 },
  { name: 'node:http keep-alive Agent, 16 sockets', kind: 'node-http', connections: 16, pipelining: 1 },
];

export interface FloorJob {
  targets: { endpoint: number; url: string }[];
  /** One of our deliveries as a receiver got it: the floor's calls have its headers and body size. */
  sample: ReceiverSample;
  client: FloorClient;
  durationMs: number;
}

export interface FloorTry {
  client: FloorClient;
  /** Calls answered 2xx, as the client counted them. */
  calls: number;
  errors: number;
  /** The end of the warm-up (WARM_UP_MS after the first call) and the last answer (ms, the process's shared clock). */
  startedAt: number;
  endedAt: number;
}

/** Calls go this long before the measured time starts: connections opened, code compiled. */
const WARM_UP_MS = 1000;

/** Pre-built calls per endpoint, sent in turn. */
const PREBUILT = 64;

const now = () => performance.timeOrigin + performance.now();

interface Prebuilt {
  headers: Record<string, string>;
  /** The same, flat (undici's cheapest form). */
  flat: string[];
  body: Buffer;
}

/** PREBUILT signed calls for `endpoint`: ids msg_<endpoint>_<1..PREBUILT>, the sample's headers, a body of its size. */
function prebuild(endpoint: number, sample: ReceiverSample): Prebuilt[] {
  const key = randomBytes(24);
  const timestamp = Math.floor(Date.now() / 1000);
  const body = Buffer.from(sample.body);
  const calls: Prebuilt[] = [];
  for (let k = 1; k <= PREBUILT; k++) {
    const id = `msg_${endpoint}_${k}`;
    const signature = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;
    const headers: Record<string, string> = {};
    // The sample's headers, but those the client sets itself.
    for (const [name, value] of Object.entries(sample.headers))
      if (name !== 'host' && name !== 'connection' && name !== 'transfer-encoding') headers[name] = value;
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(timestamp);
    headers['webhook-signature'] = signature;
    headers['content-length'] = String(body.length);
    calls.push({ headers, flat: Object.entries(headers).flat(), body });
  }
  return calls;
}

/** Runs one client for job.durationMs; resolves when its last call is answered. */
function drive(job: FloorJob): Promise<FloorTry> {
  const { client } = job;
  const inFlight = client.connections * client.pipelining;
  const deadline = performance.now() + WARM_UP_MS + job.durationMs;
  let startedAt = Number.POSITIVE_INFINITY;
  let calls = 0;
  let errors = 0;
  let running = 0;
  let endedAt = 0;
  const closers: (() => unknown)[] = [];
  return new Promise((resolve) => {
    const finished = () => {
      endedAt = now();
      for (const close of closers) close();
      resolve({ client, calls, errors, startedAt, endedAt });
    };
    const settle = (ok: boolean, next: () => void) => {
      if (now() >= startedAt) {
        if (ok) calls += 1;
        else errors += 1;
      }
      if (performance.now() < deadline) next();
      else if (--running === 0) finished();
    };
    setTimeout(() => {
      startedAt = now();
    }, WARM_UP_MS);
    for (const target of job.targets) {
      const prebuilt = prebuild(target.endpoint, job.sample);
      const url = new URL(target.url);
      let turn = 0;
      if (client.kind === 'undici') {
        const pool = new Pool(url.origin, {
          connections: client.connections,
          pipelining: client.pipelining,
          keepAliveTimeout: 60_000,
        });
        closers.push(() => pool.destroy());
        const send = () => {
          const call = prebuilt[turn++ % PREBUILT]!;
          let status = 0;
          const handler: Dispatcher.DispatchHandler = {
            onConnect: () => undefined,
            onHeaders: (statusCode) => {
              status = statusCode;
              return true;
            },
            onData: () => true,
            onComplete: () => settle(status >= 200 && status < 300, send),
            onError: () => settle(false, send),
          };
          pool.dispatch({ path: url.pathname, method: 'POST', headers: call.flat, body: call.body }, handler);
        };
        for (let i = 0; i < inFlight; i++) {
          running += 1;
          send();
        }
      } else {
        const agent = new http.Agent({ keepAlive: true, maxSockets: client.connections });
        closers.push(() => agent.destroy());
        const send = () => {
          const call = prebuilt[turn++ % PREBUILT]!;
          const request = http.request(url, { method: 'POST', agent, headers: call.headers });
          request.on('error', () => settle(false, send));
          request.on('response', (answer) => {
            answer.resume();
            answer.on('end', () => settle(answer.statusCode! >= 200 && answer.statusCode! < 300, send));
          });
          request.end(call.body);
        };
        for (let i = 0; i < inFlight; i++) {
          running += 1;
          send();
        }
      }
    }
  });
}

if (parentPort && (workerData as { floor?: FloorJob } | undefined)?.floor) {
  const port = parentPort;
  void drive((workerData as { floor: FloorJob }).floor).then((result) => port.postMessage(result));
}

/** The floor's module, loaded through tsx in the worker (as the receivers are). */
const FLOOR_BOOT = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => {
  tsx.register();
  return import(${JSON.stringify(new URL('./webhook-floor.ts', import.meta.url).href)});
})`;

/** One client's try, on a worker thread of its own (ended after it). */
export async function tryFloorClient(job: FloorJob): Promise<FloorTry> {
  const worker = new Worker(FLOOR_BOOT, { eval: true, workerData: { floor: job } });
  try {
    return await new Promise<FloorTry>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}
