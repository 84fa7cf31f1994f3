/**
 * What one role lets its clients see and do, worked out once per role for every surface to ask:
 * the data layer (which rows a read may return, what a write may set), the REST documents and
 * GraphQL schema (which fields exist), the change feed (which entries and values a consumer
 * gets). `admin` has no Access: code that is given none checks nothing and costs nothing.
 */
import { resourceByType } from '../resources/registry.ts';
import { type FieldMeaning, meaningOf } from '../query/fields.ts';
import type { WhereNode } from '../query/where.ts';
import type { Role, RoleOperation, Rule } from './roles.ts';

/** A where no row meets: the rows of a type the role may not read. */
export const NO_ROW: WhereNode = { kind: 'or', items: [] };

let made = 0;

export class Access {
  private readonly scoped = new WeakMap<WhereNode, WhereNode>();
  private readonly shown = new Map<string, Shown>();
  /**
   * This Access among all made in the process (a role read again is a new Access): what caches
   * of answers are keyed by, so that nothing made under a role's old rules is served under its new.
   */
  readonly key: string;

  /**
   * @param proposing the writes of a change request being checked as its author proposes it:
   *   rules that ask for approval allow them (src/change-requests). Everywhere else such a rule
   *   allows nothing directly.
   */
  constructor(
    readonly role: Role,
    readonly proposing = false,
  ) {
    this.key = `${role.name}#${++made}`;
  }

  private proposer: Access | undefined;

  /** This role as the author of a change request: its rules that ask for approval allow proposing. */
  proposals(): Access {
    this.proposer ??= new Access(this.role, true);
    return this.proposer;
  }

  /** Whether `operation` on `type` waits for another client's approval under this role. */
  needsApproval(type: string, operation: RoleOperation): boolean {
    return this.rule(type, operation)?.approval === 'required';
  }

  /** Whether the role may approve change requests that write `type` (its `approve` rule). */
  mayApprove(type: string): boolean {
    return this.can(type, 'approve');
  }

  get name(): string {
    return this.role.name;
  }

  /** The rule of an operation on a type, or undefined when the role may not do it. */
  rule(type: string, operation: RoleOperation): Rule | undefined {
    return this.role.rules?.get(type)?.get(operation);
  }

  can(type: string, operation: RoleOperation): boolean {
    return this.rule(type, operation) !== undefined;
  }

  /**
   * Whether the role may see `field` of `type`: an attribute, or a relationship (see
   * seesRelationship). A name that is both (a supplier's `currency`) is seen when either is.
   */
  sees(type: string, field: string): boolean {
    return this.seesAttribute(type, field) || this.seesRelationship(type, field);
  }

  /** Whether the role may see the attribute `name` of `type` (its read rule names it, or names no fields). */
  seesAttribute(type: string, name: string): boolean {
    const rule = this.rule(type, 'read');
    return !!rule && name in (resourceByType(type)?.attributes ?? {}) && (!rule.fields || rule.fields.has(name));
  }

  /** Whether the role may see the relationship `name` of `type`: named by its read rule, to a type it may read. */
  seesRelationship(type: string, name: string): boolean {
    const rule = this.rule(type, 'read');
    const relationship = resourceByType(type)?.relationships[name];
    return !!rule && !!relationship && (!rule.fields || rule.fields.has(name)) && this.can(relationship.target, 'read');
  }

  /**
   * Whether a client of the role may name the field `key` of `type` (a key of whereFields,
   * src/query/fields.ts: an attribute by its spec name, or by its column where a relationship
   * has its name; a relationship; an owner or reverse link; id, version) in a condition, an
   * ordering, a search or an aggregate. The one place every surface that takes a condition asks
   * (REST filters, GraphQL's filter, where, orderBy, search and aggregates, webhooks' where): a
   * field the role does not see cannot be named, as if it did not exist, so that no answer can
   * differ with a value the role may not see.
   */
  mayName(type: string, key: string): boolean {
    const meaning = meaningOf(type, key);
    return meaning !== undefined && this.seesMeaning(type, meaning);
  }

  /** Whether the role sees what a field of `type` reads (see mayName). */
  seesMeaning(type: string, meaning: FieldMeaning): boolean {
    if (!this.can(type, 'read')) return false;
    switch (meaning.kind) {
      case 'own':
        return true;
      case 'attribute':
        return this.seesAttribute(type, meaning.name);
      case 'relationship':
        return this.seesRelationship(type, meaning.name);
      case 'owner': {
        // The row it belongs to, where the role sees the owner's side of the link (a product's
        // structure, a structure's items).
        const { column, target } = resourceByType(type)!.ownerLinks![meaning.name]!;
        const inverse = Object.entries(resourceByType(target)!.relationships).find(
          ([, rel]) =>
            rel.target === type &&
            (rel.storage.kind === 'inverse' || rel.storage.kind === 'children') &&
            rel.storage.targetColumn === column,
        );
        return this.can(target, 'read') && (!inverse || this.seesRelationship(target, inverse[0]));
      }
      case 'reverse': {
        // The rows whose relationship points here: as seen from their side.
        const link = resourceByType(type)!.reverseLinks![meaning.name]!;
        return this.seesRelationship(link.type, link.relationship);
      }
    }
  }

  /**
   * What the role sees of a row of `type`, worked out once: the attributes and relationships it
   * sees, the attributes it hides, and the relationships whose related rows it sees only
   * some of (what it sees of a row then depends on other rows).
   */
  shownOf(type: string): Shown {
    let shown = this.shown.get(type);
    if (!shown) {
      const resource = resourceByType(type)!;
      const attributes = Object.keys(resource.attributes).filter((name) => this.seesAttribute(type, name));
      const relationships = Object.keys(resource.relationships).filter((name) => this.seesRelationship(type, name));
      shown = {
        attributes,
        hiddenAttributes: Object.keys(resource.attributes).filter((name) => !attributes.includes(name)),
        relationships,
        filteredRelationships: relationships.filter(
          (name) => this.rowFilter(resource.relationships[name]!.target) !== undefined,
        ),
      };
      this.shown.set(type, shown);
    }
    return shown;
  }

  /**
   * Whether what the role sees of a row of `type` depends on other rows: a relationship it sees
   * points at a type whose rows it sees only some of (a target it cannot see is left out).
   */
  dependsOnOthers(type: string): boolean {
    return this.shownOf(type).filteredRelationships.length > 0;
  }

  /** The rows of `type` reads may return: undefined for all of them, NO_ROW for a type it may not read. */
  rowFilter(type: string): WhereNode | undefined {
    const rule = this.rule(type, 'read');
    return rule ? rule.where : NO_ROW;
  }

  /**
   * A client's where, with every condition through a relationship limited to the rows the role
   * may read on the other side: `some`, `none` and `every` quantify over visible rows only, a
   * to-one relationship to a row it cannot see is missing. So a filter cannot tell whether a
   * hidden row exists.
   */
  scope(where: WhereNode): WhereNode {
    let scoped = this.scoped.get(where);
    if (!scoped) this.scoped.set(where, (scoped = this.scopeNode(where)));
    return scoped;
  }

  private scopeNode(node: WhereNode): WhereNode {
    switch (node.kind) {
      case 'and':
      case 'or':
        return { kind: node.kind, items: node.items.map((item) => this.scopeNode(item)) };
      case 'not':
        return { kind: 'not', item: this.scopeNode(node.item) };
      case 'compare':
        return node;
      case 'empty': {
        const filter = this.rowFilter(node.link.target);
        if (!filter) return node;
        // No related row, or one the role cannot see.
        return { kind: 'or', items: [node, { kind: 'not', item: { kind: 'toOne', link: node.link, where: filter } }] };
      }
      case 'toOne': {
        const filter = this.rowFilter(node.link.target);
        const where = this.scopeNode(node.where);
        return { ...node, where: filter ? { kind: 'and', items: [filter, where] } : where };
      }
      case 'toMany': {
        const filter = this.rowFilter(node.link.target);
        const where = this.scopeNode(node.where);
        if (!filter) return { ...node, where };
        // every: each visible row matches, whatever the hidden ones are.
        return {
          ...node,
          where:
            node.quantifier === 'every'
              ? { kind: 'or', items: [{ kind: 'not', item: filter }, where] }
              : { kind: 'and', items: [filter, where] },
        };
      }
    }
  }
}

/** What a role sees of the rows of one type (Access.shownOf). */
export interface Shown {
  attributes: readonly string[];
  hiddenAttributes: readonly string[];
  relationships: readonly string[];
  /** The relationships it sees whose related type it sees only some rows of. */
  filteredRelationships: readonly string[];
}

/** The Access of a role: undefined for admin, which may do everything. */
export function accessOf(role: Role): Access | undefined {
  return role.rules ? new Access(role) : undefined;
}
