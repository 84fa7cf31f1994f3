/**
 * Query parameters (rest.md "Reading"): exactly those an operation takes, each checked; anything
 * else, a repeated parameter, or a malformed value is 400 `invalid_parameter`.
 */
import type { Context } from 'hono';
import { ID_RANGE, INT32_RANGE, idFromText, int32FromText } from '../db/integers.ts';
import { filterWhere } from '../query/filters.ts';
import { dateOperand, type WhereNode, WhereInputError } from '../query/where.ts';
import { HttpError } from '../http/errors.ts';
import { resourceByType } from '../resources/registry.ts';
import type { Filter } from '../resources/types.ts';
import type { RestRoute } from './routes.ts';
import { mayFilter } from './authorize.ts';
import type { Access } from '../permissions/access.ts';
import { cut, quoted } from '../words.ts';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 50;

export interface Query {
  /** Relationship names to side-load (aliases resolved). */
  include: string[];
  page: number;
  perPage: number;
  /** The filters given, each checked (src/query/filters.ts). */
  conditions: WhereNode[];
  /** `as_of` (GET): read the hub as committed at this instant (src/db/past.ts). */
  asOf?: Date;
}

/** The operations that read resources, which take `as_of`. */
const READS: ReadonlySet<string> = new Set(['list', 'get', 'rel-get', 'related-get']);

function invalid(message: string): HttpError {
  return new HttpError(400, 'invalid_parameter', message);
}

/** ATOM date-time (`2026-01-31T12:00:00+00:00`); a `Z` and fractional seconds are accepted too. An
 * unencoded `+` in a query string arrives as a space: it is read as the `+` it was. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+ -]\d{2}:?\d{2})$/;

/** The instant an ATOM date-time names, or undefined when it is malformed or names no real date (Feb 30). */
function atomDate(value: string): Date | undefined {
  const match = DATE_TIME.exec(value);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const calendar = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const real =
    calendar.getUTCFullYear() === year &&
    calendar.getUTCMonth() === month - 1 &&
    calendar.getUTCDate() === day &&
    calendar.getUTCHours() === hour &&
    calendar.getUTCMinutes() === minute &&
    calendar.getUTCSeconds() === second;
  if (!real) return undefined;
  const date = new Date(value.replace(/ (\d{2}:?\d{2})$/, '+$1'));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A filter's value read from its text as its kind asks (src/query/filters.ts checks it further), or 400 naming the parameter. */
function filterValue(name: string, filter: Filter, value: string): string | number | boolean | Date {
  switch (filter.kind) {
    case 'integer': {
      const integer = int32FromText(value);
      if (integer === undefined) throw invalid(`${name} must be ${INT32_RANGE} (got ${quoted(value)})`);
      return integer;
    }
    case 'flag':
      if (value !== '0' && value !== '1') throw invalid(`${name} must be 0 or 1 (got ${quoted(value)})`);
      return value === '1';
    case 'after': {
      const date = atomDate(value);
      if (!date)
        throw invalid(`${name} must be an ATOM date-time such as 2026-01-31T12:00:00+00:00 (got ${quoted(value)})`);
      return date;
    }
    case 'equals':
    case 'gtin':
    case 'relatedReference':
      return value;
  }
}

const includeValuesByRoute = new WeakMap<RestRoute, Map<string, string>>();

/** The include values an operation accepts, by spelling, with the relationship each names (worked out once per route). */
export function includeValues(route: RestRoute): Map<string, string> {
  let values = includeValuesByRoute.get(route);
  if (!values) includeValuesByRoute.set(route, (values = routeIncludeValues(route)));
  return values;
}

function routeIncludeValues(route: RestRoute): Map<string, string> {
  const resource = resourceByType(route.type)!;
  const values = new Map<string, string>();
  const add = (names: readonly string[], aliases: Record<string, string> = {}) => {
    for (const name of names) values.set(name, name);
    for (const [alias, name] of Object.entries(aliases)) values.set(alias, name);
  };
  switch (route.operation) {
    case 'list':
      add(resource.includes.list, resource.includes.aliases?.list);
      break;
    case 'get':
    case 'add':
    case 'update':
      add(resource.includes.get, resource.includes.aliases?.get);
      break;
    case 'rel-get': {
      // The relationship itself (spec: `include` = the relationship's name), and its documented spellings.
      const rel = resource.relationships[route.relationship!]!;
      values.set(route.relationship!, route.relationship!);
      for (const alias of rel.includeAliases ?? []) values.set(alias, route.relationship!);
      break;
    }
    case 'related-get':
      // Where the spec documents it: a group with its type, a structure with its items.
      add(resource.relationships[route.relationship!]!.relatedIncludes ?? []);
      break;
    default:
      break;
  }
  return values;
}

/** The include values a role may use, per role (a role read again is another Access) and route. */
const includesByRole = new WeakMap<Access, Map<RestRoute, Map<string, string>>>();

/** The include values a role may use: those naming relationships it sees (of the route's type, or the related type's). */
function visibleIncludes(values: Map<string, string>, route: RestRoute, access: Access | undefined) {
  if (!access) return values;
  let byRoute = includesByRole.get(access);
  if (!byRoute) includesByRole.set(access, (byRoute = new Map()));
  let visible = byRoute.get(route);
  if (!visible) {
    const type =
      route.operation === 'related-get'
        ? resourceByType(route.type)!.relationships[route.relationship!]!.target
        : route.type;
    visible = new Map([...values].filter(([, relationship]) => access.seesRelationship(type, relationship)));
    byRoute.set(route, visible);
  }
  return visible;
}

/**
 * Reads and checks the query string for a route. A relationship or filter that the client's role
 * may not see is refused as if it did not exist.
 */
export function parseQuery(c: Context, route: RestRoute, access?: Access): Query {
  const params = new URLSearchParams(new URL(c.req.url).search);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) throw invalid(`parameter ${cut(name)} is repeated`);
    seen.add(name);
  }
  const resource = resourceByType(route.type)!;
  const offered = includeValues(route);
  const includes = visibleIncludes(offered, route, access);
  const query: Query = { include: [], page: 1, perPage: DEFAULT_PER_PAGE, conditions: [] };
  for (const [name, value] of params) {
    // An operation that takes include takes it under every role, even one that may include nothing of it.
    if (name === 'include' && offered.size > 0) {
      const names = value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
      for (const spelling of names) {
        const relationship = includes.get(spelling);
        if (!relationship)
          throw invalid(
            `include ${quoted(spelling)} is not allowed here; ${includes.size > 0 ? `allowed: ${[...includes.keys()].join(', ')}` : 'nothing can be included here'}`,
          );
        if (!query.include.includes(relationship)) query.include.push(relationship);
      }
    } else if (name === 'as_of' && READS.has(route.operation)) {
      try {
        // A `+` of an offset left unencoded in a URL is read as a space: read back, as the filters' dates are.
        query.asOf = dateOperand(value.replace(/ (\d{2}:\d{2})$/, '+$1'), 'as_of');
      } catch (error) {
        if (error instanceof WhereInputError) throw invalid(error.message);
        throw error;
      }
    } else if (route.operation === 'list' && name === 'page') {
      const page = idFromText(value);
      if (page === undefined) throw invalid(`page must be ${ID_RANGE} (got ${quoted(value)})`);
      query.page = page;
    } else if (route.operation === 'list' && name === 'per_page') {
      if (!/^\d{1,3}$/.test(value) || Number(value) < 1 || Number(value) > MAX_PER_PAGE) {
        throw invalid(`per_page must be an integer from 1 to ${MAX_PER_PAGE} (got ${quoted(value)})`);
      }
      query.perPage = Number(value);
    } else if (
      route.operation === 'list' &&
      resource.filters[name] &&
      mayFilter(access, route.type, resource.filters[name])
    ) {
      const filter = resource.filters[name]!;
      try {
        query.conditions.push(filterWhere(route.type, filter, filterValue(name, filter, value), name));
      } catch (error) {
        if (error instanceof WhereInputError) throw invalid(error.message);
        throw error;
      }
    } else {
      throw invalid(`unknown query parameter ${cut(name)}`);
    }
  }
  return query;
}

/** Absolute pagination links that keep the other query parameters (rest.md "Reading"). */
export function pageLinks(c: Context, base: string, route: RestRoute, query: Query, pages: number) {
  const params = new URL(c.req.url).searchParams;
  const link = (page: number) => {
    const next = new URLSearchParams(params);
    next.set('page', String(page));
    next.set('per_page', String(query.perPage));
    return `${base}${route.path}?${next.toString().replace(/%2C/g, ',')}`;
  };
  const last = Math.max(1, pages);
  return {
    self: link(query.page),
    first: link(1),
    prev: query.page > 1 ? link(Math.min(query.page - 1, last)) : null,
    next: query.page < pages ? link(query.page + 1) : null,
    last: link(last),
  };
}
