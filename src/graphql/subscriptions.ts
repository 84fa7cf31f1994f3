/**
 * `subscription { changes(after, types) }`: the change log live, over Server-Sent Events and
 * WebSocket (graphql-ws). First what is after `after` (nothing before now without it), then every
 * change as it commits, in commit order, at least once: a client that reconnects with the last
 * cursor it received misses nothing (../data/change-feed.ts).
 *
 * A stream ends with one last event that says why, an error with a code, then completes:
 * TOKEN_EXPIRED at its token's expiry, TOKEN_REVOKED within a moment of a revocation anywhere,
 * SUBSCRIBER_BEHIND when more changes wait for it than the replica keeps per subscriber,
 * SERVER_SHUTTING_DOWN when the replica drains (resume from the last cursor, elsewhere). Open
 * subscriptions are limited per API client and per replica (TOO_MANY_SUBSCRIPTIONS).
 */
import { GraphQLError } from 'graphql';
import type { TokenEnd, TokenWatch } from '../auth/tokens.ts';
import { type Follower, FollowerEnded } from '../data/change-feed.ts';
import type { ChangeEntry } from '../data/changes.ts';
import { builder } from './builder.ts';
import { ChangeRef, cursorArgument, ResourceTypeEnum } from './changes.ts';
import type { GraphQLContext } from './context.ts';

const ENDED_CODES: Record<FollowerEnded['reason'], string> = {
  behind: 'SUBSCRIBER_BEHIND',
  closing: 'SERVER_SHUTTING_DOWN',
  expired: 'CURSOR_EXPIRED',
};

/** What the stream hands the field's resolver: a change, or why it ends. */
export type Event = { entry: ChangeEntry } | { end: GraphQLError };

/** The changes waiting for a subscriber (at least one), or why its stream ends. */
export type Batch = { entries: ChangeEntry[] } | { end: GraphQLError };

/**
 * A follower of the log with the token it runs on: entries until the follower or the token ends,
 * then one event that says why. Written out by hand, like the follower, so that `return()` (the
 * client went away) ends it at once.
 */
export class ChangeStream implements AsyncIterableIterator<Event> {
  private finished = false;
  private ending: GraphQLError | undefined;
  /** Changes taken from the follower and not yet handed out one by one (next()). */
  private pending: ChangeEntry[] = [];

  constructor(
    private readonly follower: Follower,
    private readonly watch: TokenWatch,
    private readonly release: () => void,
  ) {
    void watch.ended.then((end: TokenEnd) => {
      if (this.finished) return;
      this.ending ??= new GraphQLError(end.message, { extensions: { code: end.code } });
      // Wakes a pending take(): the follower answers done, and the reason goes out.
      void this.follower.return();
    });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** One event at a time, as GraphQL's subscription execution takes them. */
  async next(): Promise<IteratorResult<Event>> {
    if (this.pending.length === 0) {
      const batch = await this.nextBatch();
      if (!batch) return { done: true, value: undefined };
      if ('end' in batch) return { done: false, value: batch };
      this.pending = batch.entries;
    }
    return { done: false, value: { entry: this.pending.shift()! } };
  }

  /**
   * The changes waiting (at least one: it waits), or why the stream ends (once), then null:
   * what a transport that writes a burst at once takes (./sse.ts).
   */
  async nextBatch(): Promise<Batch | null> {
    if (this.finished) {
      // The reason went out with the batch before: the stream is over, its place free.
      this.release();
      return null;
    }
    if (!this.ending) {
      try {
        const entries = await this.follower.take();
        if (entries && !this.ending) return { entries };
      } catch (error) {
        // Any failure ends the stream with an event that says so (masked like every error:
        // a database outage is SERVICE_UNAVAILABLE), rather than cutting the connection.
        this.ending =
          error instanceof FollowerEnded
            ? new GraphQLError(error.message, { extensions: { code: ENDED_CODES[error.reason] } })
            : new GraphQLError('the subscription failed', { originalError: error as Error });
      }
    }
    await this.finish();
    if (this.ending) return { end: this.ending };
    this.release();
    return null;
  }

  private async finish(): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.watch.stop();
    await this.follower.return();
  }

  async return(): Promise<IteratorResult<Event>> {
    this.ending = undefined;
    this.pending = [];
    await this.finish();
    this.release();
    return { done: true, value: undefined };
  }
}

/** The stream each subscription's context started, for a transport that takes it whole (./sse.ts). */
const streams = new WeakMap<object, ChangeStream>();

/** The change stream a subscription started with this context (after `subscribe` answered a stream). */
export function changeStreamOf(context: unknown): ChangeStream | undefined {
  return streams.get(context as object);
}

builder.subscriptionType({
  description: 'Live changes. Needs an access token with the `read` scope, given when subscribing.',
});

builder.subscriptionField('changes', (t) =>
  t.field({
    type: ChangeRef,
    nullable: false,
    description:
      'Extension (not in the master-data spec): every change to the master data as it commits. With `after` (a cursor from `changes`, `history`, this subscription, or `meta.changes_cursor` of a REST read): first what came after it, then live; without it, from now. In commit order, at least once: resubscribing with the last cursor received misses nothing. Ends with an error event coded TOKEN_EXPIRED, TOKEN_REVOKED or SUBSCRIBER_BEHIND (resume from your last cursor); refused with TOO_MANY_SUBSCRIPTIONS or CURSOR_EXPIRED.',
    args: {
      after: t.arg.string(),
      types: t.arg({ type: [ResourceTypeEnum], description: 'Only changes of these types.' }),
    },
    subscribe: async (_root, args, context: GraphQLContext) => {
      const release = context.subscriptions.admit(context.auth.clientId);
      try {
        // A role follows the log as it sees the data (../data/role-changes.ts).
        const { access, clientId } = context.auth;
        const follower = await context.changeFeed.follow(
          cursorArgument(args.after, 'after'),
          args.types ?? undefined,
          access && { access, clientId },
        );
        const stream = new ChangeStream(follower, context.watchToken(context.auth), release);
        streams.set(context, stream);
        return stream as AsyncIterable<never>;
      } catch (error) {
        release();
        throw error;
      }
    },
    resolve: (event: Event) => {
      if ('end' in event) throw event.end;
      return event.entry;
    },
  }),
);
