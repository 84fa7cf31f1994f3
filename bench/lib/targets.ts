/**
 * Targets: a server, a protocol and what it makes of each case and of W5's updates. `postgraphile`
 * is the peer; `graphql` and `rest` are our server's two APIs (one process serves both), through
 * bench/ours.ts; `graphql@base` and `rest@base` the same two of another checkout (`--baseline`),
 * for paired before/after numbers; `graphql+role` and `rest+role` our two APIs under a restricted
 * role (./role.ts), for what enforcing a role costs; `graphql#id` our GraphQL requests by the id of
 * the document, registered as the client's trusted document (docs/guides/trusted-documents.md),
 * instead of its text.
 */
import { createHash } from 'node:crypto';
import { firstLevel, OUR_UPDATE, OURS } from '../ours.ts';
import { normalisePeer, peerRequest, peerTotals, peerUpdate } from '../peer/queries.ts';
import type { ProductUpdate, ReadCase, Totals } from '../workloads.ts';
import type { Provider } from './databases.ts';
import { fromJsonApi, type JsonApiDocument, type Neutral, type Selection } from './neutral.ts';
import type { CounterFilter, RunningServer, ServerKind } from './servers.ts';

export type TargetName =
  | 'postgraphile'
  | 'postgraphile+trigger'
  | 'graphql'
  | 'rest'
  | 'graphql+role'
  | 'graphql#id'
  | 'rest+role'
  | 'graphql@base'
  | 'rest@base';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** What a target does with a case; `undefined` from `request` means the case does not apply. */
export interface CaseBinding {
  request: HttpRequest;
  /** The part of the case's selection the answer holds (the peer's answer is cut to it). */
  selection: Selection;
  normalise(body: unknown): Neutral;
  /** The answer's totals, for a case that reads them (W6; checked against the database's). */
  totals?(body: unknown): Totals;
}

export interface Target {
  name: TargetName;
  /** The GraphQL documents the server must have registered for the client before the case runs (by id). */
  documents?(c: ReadCase): string[];
  server: ServerKind;
  providers: readonly Provider[];
  /** The binding for a read case, or a reason it does not apply (shown as a skip). */
  bind(c: ReadCase, server: RunningServer): CaseBinding | string;
  /** The request that writes one of W5's updates. */
  update(u: ProductUpdate, server: RunningServer): HttpRequest;
  /**
   * Ours: the server's own count of the writes it answered with success (a counter on /metrics,
   * requests still in flight when a run stops included), set against the change-log entries they
   * appended: one per product update.
   */
  writesAnswered?: CounterFilter;
  /**
   * Checks each body under load. GraphQL servers answer many errors with status 200, so for
   * GraphQL a body carrying a top-level `"errors":` key counts as an error (autocannon reads every
   * body anyway; the check is a substring search).
   */
  bodyOk?: (body: string) => boolean;
}

const graphqlBodyOk = (body: string) => !body.includes('"errors":');

function post(server: RunningServer, body: unknown): HttpRequest {
  return {
    method: 'POST',
    path: '/graphql',
    headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  };
}

const OUR_TARGETS = {
  postgraphile: {
    name: 'postgraphile',
    server: 'postgraphile',
    providers: ['postgresql'],
    bind: (c, server) => ({
      request: post(server, peerRequest(c)),
      selection: c.workload.include,
      normalise: (body) => normalisePeer(c, body),
      ...(c.workload.totals && { totals: (body: unknown) => peerTotals(c, body) }),
    }),
    update: (u, server) => post(server, peerUpdate(u)),
    bodyOk: graphqlBodyOk,
  },
  'postgraphile+trigger': {
    name: 'postgraphile+trigger',
    server: 'postgraphile-trigger',
    providers: ['postgresql'],
    bind: () => 'writes only: the peer with triggers is compared on W5',
    update: (u, server) => post(server, peerUpdate(u)),
    bodyOk: graphqlBodyOk,
  },
  graphql: {
    name: 'graphql',
    server: 'ours',
    providers: ['postgresql', 'sqlite'],
    bind(c, server) {
      const slot = OURS[c.workload.name];
      const totals = slot.graphqlTotals;
      return {
        request: post(server, slot.graphql(c)),
        selection: c.workload.include,
        normalise: (body) => slot.normaliseGraphql(c, body),
        ...(totals && { totals: (body: unknown) => totals(c, body) }),
      };
    },
    update: (u, server) => post(server, OUR_UPDATE.graphql(u)),
    writesAnswered: { name: 'graphql_operations_total', labels: { type: 'mutation', outcome: 'ok' } },
    bodyOk: graphqlBodyOk,
  },
  rest: {
    name: 'rest',
    server: 'ours',
    providers: ['postgresql', 'sqlite'],
    bind(c, server) {
      const slot = OURS[c.workload.name];
      if (slot.restMissing) return slot.restMissing;
      const path = slot.rest(c);
      if (path === undefined) return `REST cannot express ${c.key} (per_page is at most 50)`;
      const selection = slot.restSelection ?? firstLevel(c.workload.include);
      const normalise =
        slot.normaliseRest ?? ((_: ReadCase, body: unknown) => fromJsonApi(body as JsonApiDocument, selection));
      return {
        request: { method: 'GET', path, headers: { ...server.headers, accept: 'application/json' } },
        selection,
        normalise: (body) => normalise(c, body),
      };
    },
    update(u, server) {
      const { path, body } = OUR_UPDATE.rest(u);
      return {
        method: 'PATCH',
        path,
        headers: { ...server.headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      };
    },
    writesAnswered: { name: 'http_requests_total', labels: { method: 'PATCH', status: '200' } },
  },
} satisfies Record<string, Target>;

/** A target of ours sent with the token of the bench's restricted role (./role.ts) instead of admin's. */
function asRestricted(target: Target, name: TargetName): Target {
  const restricted = (server: RunningServer): RunningServer => {
    if (!server.roleHeaders) throw new Error(`${name}: the server has no client with the restricted role`);
    return { ...server, headers: server.roleHeaders };
  };
  return {
    ...target,
    name,
    bind: (c, server) => target.bind(c, restricted(server)),
    update: (u, server) => target.update(u, restricted(server)),
  };
}

/** Our GraphQL target with each document sent by its id (`documentId`), registered for the client first. */
const byDocumentId: Target = {
  ...OUR_TARGETS.graphql,
  name: 'graphql#id',
  documents: (c) => [OURS[c.workload.name].graphql(c).query],
  bind(c, server) {
    const binding = OUR_TARGETS.graphql.bind(c, server);
    if (typeof binding === 'string') return binding;
    const { query, variables } = OURS[c.workload.name].graphql(c);
    return { ...binding, request: post(server, { documentId: documentId(query), variables }) };
  },
};

/** A document's id, as the service registers it: `sha256:` and the SHA-256 of its text. */
function documentId(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

export const TARGETS: Record<TargetName, Target> = {
  ...OUR_TARGETS,
  'graphql+role': asRestricted(OUR_TARGETS.graphql, 'graphql+role'),
  'graphql#id': byDocumentId,
  'rest+role': asRestricted(OUR_TARGETS.rest, 'rest+role'),
  // The same requests to the baseline checkout's server.
  'graphql@base': { ...OUR_TARGETS.graphql, name: 'graphql@base', server: 'baseline' },
  'rest@base': { ...OUR_TARGETS.rest, name: 'rest@base', server: 'baseline' },
};

/** The targets a run measures when none are named: the baseline's only with --baseline, the restricted role's only when named. */
export function defaultTargets(withBaseline: boolean): Target[] {
  return Object.values(TARGETS).filter(
    (t) => (withBaseline || t.server !== 'baseline') && !t.name.endsWith('+role') && !t.name.endsWith('#id'),
  );
}
