/**
 * A client of GraphQL over Server-Sent Events as Yoga serves it (the "distinct connections" mode:
 * one request per operation, `event: next` / `data: <result>` blocks, `event: complete` at the
 * end, `:` comment lines as pings). It reads the body as it arrives, in the background, and
 * stamps every event and comment with the moment it was parsed, so that tests can measure
 * delivery (revocation within 1 s, expiry at its instant).
 *
 * Works over the in-memory app (`TestApp.request`) and over real HTTP (`fetch` against a
 * running service): give it the function that sends the request.
 */
import { elapsed, type Send, waitUntil } from './live.ts';

export interface SseEvent {
  event: string;
  /** The parsed `data` (a GraphQL result for `next`; undefined for `complete`'s empty data). */
  data: any;
  /** Date.now() when it was parsed (to compare with instants the database holds). */
  at: number;
  /** performance.now() when it was parsed (to measure durations). */
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

export class SseStream {
  readonly events: SseEvent[] = [];
  /** performance.now() of each comment line (Yoga's pings). */
  readonly comments: number[] = [];
  /** The body ended (after `complete`, or cut). */
  finished = false;
  /** Why reading the body failed, if it did (a cancel from this side is not a failure). */
  failure: unknown;
  private readonly done: Promise<void>;
  private cancelled = false;

  private constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
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

  /** The `next` events that carry a change: `data.changes` of each. */
  changes(): any[] {
    return this.events.filter((e) => e.event === 'next' && e.data?.data?.changes).map((e) => e.data.data.changes);
  }

  /** The `next` events that carry errors. */
  errorEvents(): SseEvent[] {
    return this.events.filter((e) => e.event === 'next' && e.data?.errors);
  }

  /** The `complete` event, once it came. */
  completed(): SseEvent | undefined {
    return this.events.find((e) => e.event === 'complete');
  }

  /** Waits until `predicate` holds for this stream (checked as events arrive), or fails saying what it waited for. */
  async until(predicate: (stream: this) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    await waitUntil(
      () => {
        if (predicate(this)) return true;
        // Nothing more will come: fail now rather than at the timeout.
        if (this.finished) throw new Error(`the stream ended before ${what}; got ${this.describe()}`);
        return false;
      },
      () => `${what}; got ${this.describe()}`,
      timeoutMs,
    );
  }

  /** Waits for the stream to end with `complete`; answers the error event before it, if any. */
  async ended(timeoutMs = 15_000): Promise<SseEvent | undefined> {
    await this.until((s) => s.completed() !== undefined, 'the stream to complete', timeoutMs);
    const complete = this.events.indexOf(this.completed()!);
    const last = this.events[complete - 1];
    return last?.data?.errors ? last : undefined;
  }

  /**
   * The client goes away: cancels the body and closes the request. Does not wait for the body's
   * reader to settle (Yoga's stream settles a cancel only with its next chunk): what the server
   * does about it is for the test to see.
   */
  async cancel(): Promise<void> {
    this.cancelled = true;
    this.abort.abort();
  }

  /** The body as text, for an answer that is not a stream (a 401, a 400). */
  async text(): Promise<string> {
    await this.done;
    return this.raw;
  }

  /** A short account of what arrived, for failure messages. */
  describe(): string {
    const shown = this.events.map((e) => `${e.event}:${JSON.stringify(e.data)?.slice(0, 200)}`);
    return `status ${this.status}, ${this.events.length} events [${shown.slice(-5).join(' | ')}]${this.finished ? ' (body ended)' : ''}${this.failure ? ` (failed: ${String(this.failure)})` : ''}`;
  }

  private raw = '';

  private async pump(): Promise<void> {
    const body = this.response.body;
    if (!body) {
      this.finished = true;
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
      if (!this.cancelled) this.failure = error;
    } finally {
      this.finished = true;
    }
  }

  private dispatch(block: { event?: string; data: string[] }): void {
    const text = block.data.join('\n');
    let data: unknown;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = text;
    }
    this.events.push({ event: block.event ?? 'message', data, at: Date.now(), t: elapsed() });
  }
}
