/**
 * JSON:API-style documents of the old interface (rest.md "Documents"): resource objects with
 * every attribute and every relationship as the spec shows it (`{data}`: the relationship
 * endpoints and `links.self` carry the URLs), and their version in `meta`, and `included`
 * resources, unique. Rows
 * come with the ids of all their relationships (RequestLoaders.columns), and the included
 * resources of a whole page are loaded together, one statement per type: a document costs a
 * number of statements set by its type and includes, not by its resources.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import { definition, idsKey, relationshipIds } from '../data/columns.ts';
import { attributesOf, type RelationshipValue } from '../data/forms.ts';

import type { Row } from '../data/load.ts';
import { loadAll, type RequestLoaders } from '../data/request.ts';
import type { DocumentBytes, ResourceJson } from './document-bytes.ts';
import type { Access } from '../permissions/access.ts';

export interface ResourceObject {
  type: string;
  id: number;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data: RelationshipValue }>;
  links: { self: string };
  /** `version`: the row's version (src/data/writes.ts), which conditional writes check. */
  meta: { version: number };
}

/** The absolute URL of the API root as the client reached it (the scheme from a trusted proxy's X-Forwarded-Proto). */
export function apiBase(c: Context, basePath: string, trustProxy: number): string {
  const url = new URL(c.req.url);
  const proto = trustProxy > 0 ? c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() : undefined;
  return `${proto ? `${proto}:` : url.protocol}//${url.host}${basePath}`;
}

export class Documents {
  constructor(
    private readonly loaders: RequestLoaders,
    /** Absolute URL of the API root (origin and base path), for links. */
    readonly base: string,
  ) {}

  resourceLink(type: string, id: number): string {
    return `${this.base}/${type}/${id}`;
  }

  relationshipLinks(type: string, id: number, relationship: string) {
    return {
      self: `${this.base}/${type}/${id}/relationships/${relationship}`,
      related: `${this.base}/${type}/${id}/${relationship}`,
    };
  }

  /** A relationship's data for each row: a foreign key on the row, or the ids the row was read with. */
  relationshipData(type: string, rows: readonly Row[], relationship: string): RelationshipValue[] {
    const rel = definition(type).relationships[relationship]!;
    const storage = rel.storage;
    if (storage.kind === 'foreignKey') {
      return rows.map((row) =>
        row[storage.column] == null ? null : { type: rel.target, id: row[storage.column] as number },
      );
    }
    return rows.map((row) => {
      const ids = relationshipIds(row, relationship);
      if (Array.isArray(ids)) return ids.map((id) => ({ type: rel.target, id }));
      return ids === null ? null : { type: rel.target, id: ids };
    });
  }

  /** What the reader's role may see (src/permissions); none for admin, who sees everything. */
  private get access(): Access | undefined {
    return this.loaders.source.access;
  }

  /**
   * Resource objects for rows of one type (read with RequestLoaders.columns, shaped by
   * RequestLoaders.visible): with the attributes and relationships the reader's role may see.
   */
  resources(type: string, rows: readonly Row[]): ResourceObject[] {
    const resource = definition(type);
    const shown = this.access?.shownOf(type);
    const names = shown ? shown.relationships : Object.keys(resource.relationships);
    const data = names.map((name) => this.relationshipData(type, rows, name));
    return rows.map((row, i) => {
      const relationships: ResourceObject['relationships'] = {};
      for (let n = 0; n < names.length; n++) relationships[names[n]!] = { data: data[n]![i]! };
      const attributes = attributesOf(resource, row);
      for (const name of shown?.hiddenAttributes ?? []) delete attributes[name];
      return {
        type,
        id: row.id,
        attributes,
        relationships,
        links: { self: this.resourceLink(type, row.id) },
        meta: { version: row.version as number },
      };
    });
  }

  /**
   * The related rows of a row's document that depend on the reader's role, as the row holds their
   * ids (which of them the role may see was decided when it was read: RequestLoaders.columns).
   */
  private relatedKey(type: string, row: Row): string {
    const resource = definition(type);
    let key = '';
    for (const name of this.access?.shownOf(type).filteredRelationships ?? []) {
      const storage = resource.relationships[name]!.storage;
      // A foreign key, or a relationship's ids (an array on PostgreSQL, JSON text on SQLite).
      key += `${String(row[storage.kind === 'foreignKey' ? storage.column : idsKey(name)] ?? '-')} `;
    }
    return key;
  }

  /** A digest of the related resources a row's document shows (relatedKey). */
  relatedDigest(type: string, row: Row): string {
    return createHash('sha256').update(this.relatedKey(type, row)).digest('base64url').slice(0, 12);
  }

  /**
   * The same resource objects as JSON: those `kept` holds at their version are copied from it,
   * the others built and kept (./document-bytes.ts).
   */
  resourcesJson(type: string, rows: readonly Row[], kept: DocumentBytes): ResourceJson[] {
    const access = this.access;
    return rows.map((row) =>
      kept.resource(
        row.version as number,
        this.resourceLink(type, row.id),
        () => this.resources(type, [row])[0]!,
        // A role's objects are its own, and where it sees only some related rows, a function of which.
        access && (access.dependsOnOthers(type) ? `${access.key} ${this.relatedKey(type, row)}` : access.key),
      ),
    );
  }

  /**
   * The resources the given relationships of `rows` point at: each once, never one of the primary
   * data; as resource objects, or as what `make` makes of each type's rows.
   */
  async included<R = ResourceObject>(
    type: string,
    rows: readonly Row[],
    relationships: readonly string[],
    make: (type: string, rows: readonly Row[]) => R[] = (target, found) => this.resources(target, found) as R[],
  ): Promise<R[]> {
    const resource = definition(type);
    const primary = new Set(rows.map((r) => `${type}:${r.id}`));
    const byType = new Map<string, Set<number>>();
    const datas = relationships.map((name) => this.relationshipData(type, rows, name));
    relationships.forEach((name, n) => {
      const target = resource.relationships[name]!.target;
      let set = byType.get(target);
      if (!set) byType.set(target, (set = new Set()));
      for (const data of datas[n]!) {
        for (const identifier of Array.isArray(data) ? data : data ? [data] : []) {
          if (!primary.has(`${target}:${identifier.id}`)) set.add(identifier.id);
        }
      }
    });
    const groups = await Promise.all(
      [...byType].map(async ([target, ids]) => {
        const found = await loadAll(
          this.loaders.byId(target),
          [...ids].sort((a, b) => a - b),
        );
        return make(
          target,
          found.filter((r): r is Row => r !== null),
        );
      }),
    );
    return groups.flat();
  }
}
