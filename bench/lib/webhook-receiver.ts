/**
 * A webhook receiver on a worker thread (./webhooks.ts): answers every call at once, 204, or 500
 * to `failRate` of them at random, and records each call (endpoint and entry from its
 * `webhook-id`, status, when it came on the process's shared clock). Messages: `collect` sends
 * the records (and the first call's headers and body, the sample the floor's calls copy),
 * `count` only how many distinct entries were accepted (of those `{ expect }` named, when it
 * came: cheap enough to ask twice a second while deliveries go on), `reset` forgets them (after
 * the floor, before our deliveries).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface ReceiverCall {
  endpoint: number;
  seq: number;
  status: number;
  at: number;
}

/** A call as it came: its headers and body (the floor sends calls of this size, with these headers). */
export interface ReceiverSample {
  headers: Record<string, string>;
  body: string;
}

export interface ReceiverRecords {
  endpoint: Int32Array;
  seq: Int32Array;
  status: Int16Array;
  at: Float64Array;
  sample?: ReceiverSample;
  calls(): ReceiverCall[];
  accepted(): string[];
}

if (parentPort) {
  const port = parentPort;
  const { failRate } = workerData as { failRate: number };
  let endpoint: number[] = [];
  let seq: number[] = [];
  let status: number[] = [];
  let at: number[] = [];
  let sample: ReceiverSample | undefined;
  /** Endpoint and entry of each call accepted (2xx), as one number: endpoint * 2^32 + seq. */
  let accepted = new Set<number>();
  /** The keys the scenario waits for, and how many of them were accepted. */
  let expected: Set<number> | undefined;
  let expectedAccepted = 0;
  const server = createServer((req, res) => {
    let chunks: Buffer[] | undefined;
    if (sample === undefined) {
      chunks = [];
      req.on('data', (c: Buffer) => chunks!.push(c));
    } else req.resume();
    req.on('end', () => {
      const id = /^msg_(\d+)_(\d+)$/.exec(String(req.headers['webhook-id']));
      const answer = Math.random() < failRate ? 500 : 204;
      if (chunks && sample === undefined)
        sample = {
          headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
          body: Buffer.concat(chunks).toString('utf8'),
        };
      endpoint.push(Number(id?.[1] ?? 0));
      seq.push(Number(id?.[2] ?? 0));
      status.push(answer);
      const key = Number(id?.[1] ?? 0) * 2 ** 32 + Number(id?.[2] ?? 0);
      if (answer < 300 && !accepted.has(key)) {
        accepted.add(key);
        if (expected?.has(key)) expectedAccepted += 1;
      }
      at.push(performance.timeOrigin + performance.now());
      res.writeHead(answer);
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => port.postMessage({ port: (server.address() as AddressInfo).port }));
  port.on('message', (message: unknown) => {
    if (message === 'reset') {
      endpoint = [];
      seq = [];
      status = [];
      at = [];
      accepted = new Set();
      expected = undefined;
      expectedAccepted = 0;
      port.postMessage({ reset: true });
      return;
    }
    if (message === 'count') {
      port.postMessage({ accepted: expected ? expectedAccepted : accepted.size });
      return;
    }
    if (typeof message === 'object' && message !== null && 'expect' in message) {
      expected = new Set((message as { expect: Float64Array }).expect);
      expectedAccepted = 0;
      for (const key of accepted) if (expected.has(key)) expectedAccepted += 1;
      port.postMessage({ expecting: expected.size });
      return;
    }
    port.postMessage({
      endpoint: Int32Array.from(endpoint),
      seq: Int32Array.from(seq),
      status: Int16Array.from(status),
      at: Float64Array.from(at),
      sample,
    });
  });
}

/** The records as the worker sent them, with their readers. */
export function records(raw: Omit<ReceiverRecords, 'calls' | 'accepted'>): ReceiverRecords {
  return {
    ...raw,
    calls: () =>
      Array.from(raw.seq, (s, i) => ({ endpoint: raw.endpoint[i]!, seq: s, status: raw.status[i]!, at: raw.at[i]! })),
    accepted: () =>
      Array.from(raw.seq, (s, i) => (raw.status[i]! < 300 ? `${raw.endpoint[i]}/${s}` : '')).filter(Boolean),
  };
}
