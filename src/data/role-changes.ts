/**
 * The change log as a role sees it (docs/reference/roles.md), for every surface that serves it: REST's /changes, GraphQL's `changes` and `history`,
 * and live changes (and change requests' entries, as their author and approvers see them:
 * ./change-request-entries.ts). So a consumer that reads everything and then follows the log holds exactly
 * the role's view of the database:
 *
 * - only entries of types the role may read;
 * - `changed`, `before` and `after` hold only the fields it sees; an update of hidden fields only
 *   is left out (the cursor moves past it all the same: pages end where the log's do);
 * - a row that leaves the role's row filter comes as `deleted` (with what the role saw of it), one
 *   that enters as `created` with every field the role sees, as the row was at that entry; an
 *   entry of a row outside the filter before and after it is left out;
 * - a relationship to a row the role cannot see now is null (to-one) or left out (to-many), as
 *   reads show it.
 *
 * Whether a row meets the filter before and after an entry is worked out in memory (the filter
 * reads the row alone: ../permissions/matches.ts) on the row as it was then (./role-state.ts).
 * Types without a row filter only lose hidden fields: no statement is added for them. Admin has
 * no Access and never comes here.
 */
import type { DataSource as Reads } from '../db/reads.ts';
import type { Access } from '../permissions/access.ts';
import { matches } from '../permissions/matches.ts';
import type { WhereNode } from '../query/where.ts';
import { type ChangeEntry, type ChangesPage, changesAfter, historiesOf } from './changes.ts';
import { definition } from './columns.ts';
import type { Identifier } from './forms.ts';
import { type Around, fieldsOf, statesAround } from './role-state.ts';
import { CHANGE_REQUESTS, followedTypes, requestViews, shownTo } from './change-request-entries.ts';
import { rowsFor } from './authorize.ts';

/** A type no entry has: what a role that reads no type follows. */
const NO_TYPE = '';

/**
 * The types of `types` (every resource type when none are given: followedTypes) the role may
 * read, change requests among them, whose entries are shown by who the client is
 * (./change-request-entries.ts); never empty.
 */
export function readableTypes(access: Access, types?: readonly string[]): string[] {
  const asked = followedTypes(types);
  const readable = asked.filter((type) => type === CHANGE_REQUESTS || access.can(type, 'read'));
  return readable.length > 0 ? readable : [NO_TYPE];
}

/**
 * The entries after `after` (of `types`, when given) as API client `clientId` of the role sees
 * them: changesAfter's page, with the entries it leaves out taken out (the cursor is the page's
 * all the same).
 */
export async function changesFor(
  source: Reads,
  access: Access,
  after: number | undefined,
  { types, limit, clientId }: { types?: readonly string[]; limit: number; clientId: number },
): Promise<ChangesPage> {
  const page = await changesAfter(source, after, { types: readableTypes(access, types), limit });
  return { ...page, entries: shownTo(present(await roleViews(source, access, page.entries)), clientId) };
}

export interface RoleHistory {
  entries: ChangeEntry[];
  hasMore: boolean;
  /** The oldest entry read (shown or not): where the next page starts; null when none was. */
  end: number | null;
}

/** historiesOf as the role sees it: each resource's entries newest first, those it leaves out taken out. */
export async function historiesFor(
  source: Reads,
  access: Access,
  type: string,
  ids: readonly number[],
  { before, limit }: { before?: number; limit: number },
): Promise<RoleHistory[]> {
  const pages = await historiesOf(source, type, ids, { before, limit });
  const all = pages.flatMap((page) => page.entries);
  const views = await roleViews(source, access, all);
  const viewOf = new Map(all.map((entry, i) => [entry, views[i] ?? null]));
  return pages.map((page) => ({
    entries: present(page.entries.map((entry) => viewOf.get(entry) ?? null)),
    hasMore: page.hasMore,
    end: page.entries.at(-1)?.seq ?? null,
  }));
}

function present(entries: readonly (ChangeEntry | null)[]): ChangeEntry[] {
  return entries.filter((entry): entry is ChangeEntry => entry !== null);
}

/**
 * Each entry as the role sees it, in the same places; null where the role does not see it, and
 * `onlyFor` on a change request's entry only its author sees (shownTo). The statements: two more
 * for the types with a row filter (./role-state.ts), one per related type with a row filter that
 * a shown relationship points at, one for the entries of change requests.
 */
export async function roleViews(
  source: Reads,
  access: Access,
  entries: readonly ChangeEntry[],
): Promise<(ChangeEntry | null)[]> {
  const ofRequests = entries.filter((entry) => entry.type === CHANGE_REQUESTS);
  if (ofRequests.length === 0) return resourceViews(source, access, entries);
  const ofResources = entries.filter((entry) => entry.type !== CHANGE_REQUESTS);
  const [requests, others] = await Promise.all([
    requestViews(source, access, ofRequests),
    resourceViews(source, access, ofResources),
  ]);
  let r = 0;
  let o = 0;
  return entries.map((entry) => (entry.type === CHANGE_REQUESTS ? requests[r++]! : others[o++]!));
}

/** roleViews of entries of resources. */
async function resourceViews(
  source: Reads,
  access: Access,
  entries: readonly ChangeEntry[],
): Promise<(ChangeEntry | null)[]> {
  const readable = (type: string) => access.can(type, 'read');
  const states = await statesAround(source, entries, (type) => readable(type) && access.rowFilter(type) !== undefined);
  const views = entries.map((entry) => {
    if (!readable(entry.type)) return null;
    const filter = access.rowFilter(entry.type);
    const moved = filter ? throughFilter(entry, filter, states.get(entry.seq)) : entry;
    return moved && withVisibleFields(access, moved);
  });
  return withVisibleTargets(source, access, views);
}

/** An entry as it crosses the role's row filter (or not): itself, `created`, `deleted`, or null. */
function throughFilter(entry: ChangeEntry, filter: WhereNode, around: Around | undefined): ChangeEntry | null {
  if (!around) return null;
  const was = around.before !== null && matches(filter, around.before);
  const is = around.after !== null && matches(filter, around.after);
  if (was === is) return was ? entry : null;
  const resource = definition(entry.type);
  if (is) {
    if (entry.op === 'created') return entry;
    const fields = fieldsOf(resource, around.after!);
    return { ...entry, op: 'created', changed: Object.keys(fields), before: null, after: fields };
  }
  if (entry.op === 'deleted') return entry;
  const fields = fieldsOf(resource, around.before!);
  return { ...entry, op: 'deleted', changed: Object.keys(fields), before: fields, after: null };
}

/** Per Access and type: the log's names of the fields the role sees, or `all`. */
const visibleFields = new WeakMap<Access, Map<string, ReadonlySet<string> | 'all'>>();

function fieldsSeen(access: Access, type: string): ReadonlySet<string> | 'all' {
  let byType = visibleFields.get(access);
  if (!byType) visibleFields.set(access, (byType = new Map()));
  let seen = byType.get(type);
  if (!seen) {
    const resource = definition(type);
    // An attribute that shares its name with a relationship (a supplier's currency) goes by its column in the log.
    const attributes = Object.entries(resource.attributes).map(([n, a]) => [
      n in resource.relationships ? a.column : n,
      n,
    ]);
    const names = [...attributes.map(([logName]) => logName!), ...Object.keys(resource.relationships)];
    const visible = new Set([
      ...attributes.filter(([, n]) => access.seesAttribute(type, n!)).map(([logName]) => logName!),
      ...Object.keys(resource.relationships).filter((n) => access.seesRelationship(type, n)),
    ]);
    seen = visible.size === names.length ? 'all' : visible;
    byType.set(type, seen);
  }
  return seen;
}

/** The entry with the fields the role does not see taken out; null for an update of those only. */
function withVisibleFields(access: Access, entry: ChangeEntry): ChangeEntry | null {
  const seen = fieldsSeen(access, entry.type);
  if (seen === 'all') return entry;
  const changed = entry.changed.filter((name) => seen.has(name));
  if (changed.length === 0 && entry.op === 'updated') return null;
  const pick = (values: Record<string, unknown> | null) =>
    values && Object.fromEntries(Object.entries(values).filter(([name]) => seen.has(name)));
  return { ...entry, changed, before: pick(entry.before), after: pick(entry.after) };
}

/** Relationships of `type` the role sees whose targets it sees only some rows of (Access.shownOf), with their targets. */
function filteredTargets(access: Access, type: string): [string, string][] {
  const relationships = definition(type).relationships;
  return access.shownOf(type).filteredRelationships.map((name) => [name, relationships[name]!.target]);
}

function identifiers(value: unknown): Identifier[] {
  if (Array.isArray(value)) return value as Identifier[];
  return value ? [value as Identifier] : [];
}

/**
 * The entries with relationships to rows the role cannot see now taken out, as reads show them:
 * one statement per related type with a row filter that a shown relationship points at. An update
 * left with no change it can see is left out.
 */
async function withVisibleTargets(
  source: Reads,
  access: Access,
  entries: (ChangeEntry | null)[],
): Promise<(ChangeEntry | null)[]> {
  const wanted = new Map<string, Set<number>>();
  for (const entry of entries) {
    if (!entry) continue;
    for (const [name, target] of filteredTargets(access, entry.type))
      for (const values of [entry.before, entry.after])
        for (const { id } of identifiers(values?.[name])) {
          let ids = wanted.get(target);
          if (!ids) wanted.set(target, (ids = new Set()));
          ids.add(id);
        }
  }
  if (wanted.size === 0) return entries;
  const seen = new Map<string, Set<number>>();
  for (const [target, ids] of wanted)
    seen.set(target, new Set(await rowsFor(source, access, target, [...ids], 'read')));
  return entries.map((entry) => entry && hideTargets(access, entry, seen));
}

function hideTargets(access: Access, entry: ChangeEntry, seen: Map<string, Set<number>>): ChangeEntry | null {
  const targets = filteredTargets(access, entry.type);
  const hide = (values: Record<string, unknown> | null) => {
    if (!values) return values;
    const shown = { ...values };
    for (const [name, target] of targets) {
      if (!(name in shown)) continue;
      const value = shown[name];
      const visible = seen.get(target)!;
      shown[name] = Array.isArray(value)
        ? (value as Identifier[]).filter((v) => visible.has(v.id))
        : value && visible.has((value as Identifier).id)
          ? value
          : null;
    }
    return shown;
  };
  const before = hide(entry.before);
  const after = hide(entry.after);
  if (entry.op !== 'updated') return { ...entry, before, after };
  const changed = entry.changed.filter((name) => JSON.stringify(before?.[name]) !== JSON.stringify(after?.[name]));
  if (changed.length === 0) return null;
  const pick = (values: Record<string, unknown> | null) =>
    values && Object.fromEntries(changed.map((name) => [name, values[name]]));
  return { ...entry, changed, before: pick(before), after: pick(after) };
}
