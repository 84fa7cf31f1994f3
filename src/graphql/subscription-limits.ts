/**
 * The bounds on open subscriptions (./subscriptions.ts): per replica, and per API client on a
 * replica, so that one client cannot take every place. TOO_MANY_SUBSCRIPTIONS beyond them.
 */
import { GraphQLError } from 'graphql';
import { count } from '../words.ts';

export interface SubscriptionLimitOptions {
  /** Open subscriptions per replica. */
  perReplica: number;
  /** Open subscriptions per API client, on one replica. */
  perClient: number;
}

/** Counts open subscriptions, per replica and per API client. */
export class SubscriptionLimits {
  private total = 0;
  private readonly byClient = new Map<number, number>();

  constructor(readonly options: SubscriptionLimitOptions) {}

  get open(): number {
    return this.total;
  }

  /**
   * Resolves once every open subscription has ended (its last event sent: a place is given back
   * when its stream is over), or after `timeoutMs`: how a drain lets them say why they end.
   */
  async whenNoneOpen(timeoutMs: number): Promise<void> {
    const until = performance.now() + timeoutMs;
    while (this.total > 0 && performance.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Takes a place for a client's new subscription (TOO_MANY_SUBSCRIPTIONS when none is left); answers how to give it back. */
  admit(clientId: number): () => void {
    const mine = this.byClient.get(clientId) ?? 0;
    if (this.total >= this.options.perReplica)
      throw tooMany(`this server has ${count(this.options.perReplica, 'subscription')} open, its limit: retry later`);
    if (mine >= this.options.perClient)
      throw tooMany(
        `this API client has ${count(this.options.perClient, 'subscription')} open on this server, its limit: end one first`,
      );
    this.total++;
    this.byClient.set(clientId, mine + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.byClient.get(clientId) ?? 1) - 1;
      if (left === 0) this.byClient.delete(clientId);
      else this.byClient.set(clientId, left);
    };
  }
}

function tooMany(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } });
}
