/**
 * A client of GraphQL over Server-Sent Events as Yoga serves it (the "distinct connections" mode:
 * one request per operation, `event: next` / `data: <result>` blocks, `event: complete` at the
 * end, `:` comment lines as pings). It reads the body as it arrives, in the background, and
 * stamps every event and comment with the moment it was parsed, so that tests can measure
 * delivery (revocation within 1 s, expiry at its instant).
 *
 * Works over the in-memory app (`TestApp.request`) and over real HTTP (`fetch` against a
 * running service): give it the function that sends the request. `sse` is the transport of the
 * tests that run over every transport (./live.ts).
 */
import { expect } from 'vitest';
import { CHANGES, elapsed, LiveSubscription, over, type Send, type Transport } from './live.ts';

export interface SseEvent {
  event: string;
  /** The parsed `data` (a GraphQL result for `next`; undefined for `complete`'s empty data). */
  data: any;
  /** performance.now() when it was parsed. */
  t: number;
}

export interface SseOptions {
  query: string;
  variables?: Record<string, unknown>;
  /** Bearer token; null sends no Authorization header. */
  token: string | null;
  /** GET puts the operation in the query string (GraphQL over SSE allows both). Default POST. */
  method?: 'GET' | 'POST';
}

export class SseStream extends LiveSubscription {
  /** Every event, `next` and `complete` (the `next` ones are also `results`). */
  readonly events: SseEvent[] = [];
  /** performance.now() of each comment line (Yoga's pings). */
  readonly comments: number[] = [];
  /** Why reading the body failed, if it did (a close from this side is not a failure). */
  failure: unknown;
  private bodyEnded = false;
  private readonly done: Promise<void>;
  private closed = false;
  private raw = '';

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    super();
    this.done = this.pump();
  }

  /** Sends the operation and starts reading the stream (whatever the status: check `status`). */
  static async open(send: Send, options: SseOptions): Promise<SseStream> {
    const abort = new AbortController();
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (options.token !== null) headers.Authorization = `Bearer ${options.token}`;
    let path = '/graphql';
    const init: RequestInit = { method: options.method ?? 'POST', headers, signal: abort.signal };
    if (init.method === 'GET') {
      const params = new URLSearchParams({ query: options.query });
      if (options.variables) params.set('variables', JSON.stringify(options.variables));
      path += `?${params}`;
    } else {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify({ query: options.query, variables: options.variables });
    }
    return new SseStream(await send(path, init), abort);
  }

  get status(): number {
    return this.response.status;
  }

  get contentType(): string | null {
    return this.response.headers.get('content-type');
  }

  override get accepted(): boolean {
    return this.status === 200;
  }

  /** The body ended (after `complete`, or cut). */
  override get finished(): boolean {
    return this.bodyEnded;
  }

  /**
   * The client goes away: cancels the body and closes the request. Does not wait for the body's
   * reader to settle (Yoga's stream settles a cancel only with its next chunk): what the server
   * does about it is for the test to see.
   */
  override async close(): Promise<void> {
    this.closed = true;
    this.abort.abort();
  }

  /** The body as text, for an answer that is not a stream (a 401, a 400). */
  async text(): Promise<string> {
    await this.done;
    return this.raw;
  }

  protected override connection(): string {
    const failed = this.failure ? ` (failed: ${String(this.failure)})` : '';
    return `status ${this.status}, ${this.events.length} events${this.bodyEnded ? ' (body ended)' : ''}${failed}`;
  }

  private async pump(): Promise<void> {
    const body = this.response.body;
    if (!body) {
      this.stop();
      return;
    }
    const reader = body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let block: { event?: string; data: string[] } = { data: [] };
    this.abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        this.raw += text;
        buffer += text;
        let newline = buffer.indexOf('\n');
        while (newline >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          newline = buffer.indexOf('\n');
          if (line === '') {
            if (block.event !== undefined || block.data.length > 0) this.dispatch(block);
            block = { data: [] };
          } else if (line.startsWith(':')) this.comments.push(elapsed());
          else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'event') block.event = value;
            else if (field === 'data') block.data.push(value);
          }
        }
      }
    } catch (error) {
      if (!this.closed) this.failure = error;
    } finally {
      this.stop();
    }
  }

  private stop(): void {
    this.bodyEnded = true;
    this.end('close');
  }

  private dispatch(block: { event?: string; data: string[] }): void {
    const text = block.data.join('\n');
    let data: unknown;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = text;
    }
    const event = block.event ?? 'message';
    this.events.push({ event, data, t: elapsed() });
    if (event === 'next') this.received(data as any);
    else if (event === 'complete') this.end('complete');
  }
}

/** GraphQL over Server-Sent Events: POST /graphql with `Accept: text/event-stream`. */
export const sse: Transport = {
  name: 'Server-Sent Events',
  invalidToken: 401,
  open: (baseUrl, token, operation) => SseStream.open(over(baseUrl), { ...operation, token }),
  async refusal(baseUrl, token) {
    const stream = await SseStream.open(over(baseUrl), { query: CHANGES, token });
    if (stream.status === 200) {
      await stream.close();
      return 'admitted';
    }
    // The body is GraphQL errors; the OAuth error and its words are the challenge's (RFC 6750).
    await stream.text();
    const challenge = stream.response.headers.get('www-authenticate') ?? '';
    const [, error, description] = /error="([^"]*)", error_description="([^"]*)"/.exec(challenge) ?? [];
    return { code: stream.status, reason: `${error}: ${description}` };
  },
};

/** The result an event stream carries: the data of its one `next` event, which `complete` follows. */
export function streamedResult(text: string): string {
  const events = [...text.matchAll(/^event: (\w+)\ndata:(.*)$/gm)].map((m) => [m[1], m[2]!.trim()]);
  expect(
    events.map(([event]) => event),
    text,
  ).toEqual(['next', 'complete']);
  return events[0]![1]!;
}
