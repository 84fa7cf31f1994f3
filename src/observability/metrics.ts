/**
 * Prometheus metrics of one app instance (a registry of its own, so tests can build many apps).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Database } from '../db/client.ts';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
  graphqlOperations: Counter<'operation' | 'type' | 'outcome'>;
  graphqlDuration: Histogram<'operation' | 'type'>;
}

/** Seconds; the same for HTTP requests and GraphQL operations, so that the two compare bucket by bucket. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(db: Database): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer HTTP requests, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  const graphqlOperations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL operations, by operation name, type (query, mutation; unknown when refused unparsed) and outcome (ok, error, rejected before running)',
    labelNames: ['operation', 'type', 'outcome'] as const,
    registers: [registry],
  });
  const graphqlDuration = new Histogram({
    name: 'graphql_operation_duration_seconds',
    help: 'Time to execute GraphQL operations (parse, validate, execute), by operation name and type',
    labelNames: ['operation', 'type'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  new Counter({
    name: 'db_statements_total',
    help: 'SQL statements the data layer has sent to the database (transaction control not counted)',
    registers: [registry],
    collect() {
      // The count lives in the database wrapper; mirror it at scrape time.
      this.reset();
      this.inc(db.statementCount);
    },
  });
  const { replica } = db;
  if (replica) {
    new Counter({
      name: 'db_replica_statements_total',
      help: 'Of db_statements_total, those the read replica (DATABASE_REPLICA_URL) answered',
      registers: [registry],
      collect() {
        this.reset();
        this.inc(replica.state.statements);
      },
    });
    new Gauge({
      name: 'db_replica_usable',
      help: '1 while reads of a client without a pending write go to the read replica: it answers, lags no more than DATABASE_REPLICA_MAX_LAG_MS and has replayed what this process must wait for since it (re)connected; else 0 (reads go to the primary)',
      registers: [registry],
      collect() {
        this.set(replica.state.usable ? 1 : 0);
      },
    });
    new Gauge({
      name: 'db_replica_lag_seconds',
      help: 'Age of the oldest write this process heard of that the read replica has not replayed',
      registers: [registry],
      collect() {
        this.set(replica.state.lagMs / 1000);
      },
    });
  }
  return { registry, httpRequests, httpDuration, graphqlOperations, graphqlDuration };
}

/**
 * Webhook delivery's metrics: attempts by outcome (delivered, failed and to be tried again,
 * dead-lettered), and per endpoint delivered here the age of its oldest entry not yet delivered
 * (what also holds back the change log's purge).
 */
export function webhookMetrics(registry: Registry, backlogs: () => { id: number; ms: number }[]) {
  new Gauge({
    name: 'webhook_backlog_oldest_seconds',
    help: 'Per webhook endpoint delivered by this replica, the age of the oldest change not yet delivered (0: none waiting); the change log keeps every entry an active endpoint has not received',
    labelNames: ['webhook'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { id, ms } of backlogs()) this.set({ webhook: String(id) }, ms / 1000);
    },
  });
  return new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome: delivered (2xx), failed (to be tried again), dead (given up and dead-lettered)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
}
