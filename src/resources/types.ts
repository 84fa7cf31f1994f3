/**
 * The shape of a resource description. One description per resource type (src/resources/<group>)
 * is what both APIs are generated from: names are the spec's, spelled as it spells them.
 */

/** The languages of `localized` text, in the order their columns are stored and shown. */
export const LOCALES = ['nl', 'fr', 'en', 'de'] as const;
export type Locale = (typeof LOCALES)[number];

/** Value types of attributes. `localized` is `{nl, fr, en, de}`; `object` a small fixed record. */
export type ScalarType = 'string' | 'integer' | 'decimal' | 'boolean' | 'datetime';
export type AttributeType = ScalarType | 'localized' | { object: Record<string, ScalarType> };

/** Text with a standard form, checked on every write (src/data/formats.ts). */
export type Format = 'gtin' | 'gln' | 'email' | 'country' | 'language' | 'currency';

export interface Attribute {
  type: AttributeType;
  /** `client`: written from request bodies. `server`: maintained by the server, ignored in bodies. */
  write: 'client' | 'server';
  /** Must be given on ADD. */
  required: boolean;
  /** Unique among the resources of this type (where not null). */
  unique: boolean;
  /** May be null (the column allows it). Flags are never null: they have a default. */
  nullable: boolean;
  /**
   * Clean-data bounds of a number (src/data/validate.ts): `exclusiveMinimum` 0 for a structure's
   * batch quantity, which explosions divide by; `minimum` 0 for weights, prices and quantities;
   * 0..100 for a percentage. Named as JSON Schema names them, which OpenAPI shows.
   */
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  /** Clean-data rule of a text with a standard form (a GTIN, an e-mail address, an ISO code): src/data/formats.ts. */
  format?: Format;
  /**
   * Storage: the Prisma field, or for `localized` and `object` types the prefix of the fields
   * (`<column>_nl`, `<column>_<field>`). Defaults to the attribute's name.
   */
  column: string;
  /** Values observed in the old service, for documentation (the spec lists no others). */
  observedValues?: readonly string[];
  /**
   * Not in the master-data spec: what it is for. The spec is a floor: everything it lists must be
   * described here, spelled as it spells it, and anything more says so here; OpenAPI and the SDL
   * show it as an extension (./extensions.ts).
   */
  extension?: string;
}

/** Relationship operations of the spec (see ../shared/spec "Conventions"). */
export type RelationshipOperation = 'get' | 'set' | 'related' | 'add' | 'replace' | 'remove';

/**
 * Where a relationship lives:
 * - `foreignKey`: a column of this resource's table (to-one);
 * - `inverse`: the target holds a unique foreign key to this resource (to-one, e.g. a product's structure);
 * - `join`: a join table (to-many);
 * - `children`: the targets hold a foreign key to this resource and belong to it (to-many, structure items).
 */
export type RelationshipStorage =
  | { kind: 'foreignKey'; column: string; relation: string }
  | { kind: 'inverse'; relation: string; targetColumn: string }
  | {
      kind: 'join';
      relation: string;
      joinModel: string;
      joinTable: string;
      ownColumn: string;
      targetColumn: string;
      targetRelation: string;
    }
  | { kind: 'children'; relation: string; targetColumn: string };

export interface Relationship {
  target: string;
  cardinality: 'to-one' | 'to-many';
  storage: RelationshipStorage;
  /** To-one: whether it may be set to null (REL-SET with a null identifier). */
  removable: boolean;
  /** Must be given on ADD. */
  required: boolean;
  /** Operations the spec lists for this relationship; anything else is 405. */
  operations: readonly RelationshipOperation[];
  /**
   * Operations the spec lists only to say they are always refused (403 `forbidden`), with what
   * to use instead. Changing the relationship inside an UPDATE body is refused the same way.
   */
  forbidden?: { operations: readonly RelationshipOperation[]; message: string };
  /** Deprecated by the spec (suppliers' buyer and key_user), with the relationship that replaces it. */
  deprecated?: { replacedBy: string };
  /** Extra `include` values REL-GET accepts besides the relationship's name. */
  includeAliases?: readonly string[];
  /** `include` values RELATED-GET takes (relationships of the target), where the spec documents any. */
  relatedIncludes?: readonly string[];
  /**
   * Not in the master-data spec: what it is for. The spec is a floor: everything it lists must be
   * described here, spelled as it spells it, and anything more says so here; OpenAPI and the SDL
   * show it as an extension (./extensions.ts).
   */
  extension?: string;
}

export type ResourceOperation = 'list' | 'add' | 'get' | 'update';

export type Filter =
  /** `?param=value`: equality on a string column. */
  | { kind: 'equals'; column: string }
  /** `?param=<integer>`: equality on an integer column. */
  | { kind: 'integer'; column: string }
  /** `?param=0|1`: a boolean column. */
  | { kind: 'flag'; column: string }
  /** `?param=<digits>`: a GTIN, leading zeros optional. */
  | { kind: 'gtin'; column: string }
  /** `?param=<reference>`: the related resource's `reference`. */
  | { kind: 'relatedReference'; relationship: string }
  /** `?param=<ATOM date-time>`: strictly after. */
  | { kind: 'after'; column: string };

export interface ResourceDefinition {
  /** The spec's type name, e.g. `customers`. */
  type: string;
  /**
   * The singular of `type`, where the rule of ./names.ts would guess it wrong (`boxes` -> `box`).
   * Names the GraphQL type (`Box`) and the OpenAPI schemas (`BoxResource`).
   */
  singular?: string;
  /** The Prisma model (client delegate) name, e.g. `customer`. */
  model: string;
  /** The resource group of the spec the type belongs to. */
  group: 'customers' | 'products' | 'structures' | 'suppliers';
  /**
   * Not in the master-data spec: what it is for. The spec is a floor: everything it lists must be
   * described here, spelled as it spells it, and anything more says so here; OpenAPI and the SDL
   * show it as an extension (./extensions.ts).
   */
  extension?: string;
  attributes: Record<string, Attribute>;
  relationships: Record<string, Relationship>;
  /** Operations allowed on the collection and its members. */
  operations: readonly ResourceOperation[];
  /** Collection operations always refused (403) with what to use instead, e.g. ADD structures. */
  forbidden?: { operations: readonly ResourceOperation[]; message: string };
  /** LIST query parameters, by parameter name as the spec spells it. */
  filters: Record<string, Filter>;
  /**
   * Allowed `include` values of LIST and of GET (ADD and UPDATE answer like GET), with the other
   * spellings the spec documents for one operation, mapped to the relationship they name; and
   * the relationships an UPDATE answer always includes (the spec shows a structure's items).
   */
  includes: {
    list: readonly string[];
    get: readonly string[];
    aliases?: { list?: Record<string, string>; get?: Record<string, string> };
    update?: readonly string[];
  };
  /**
   * Links the spec does not list but a user expects from this side: the resources of another type
   * whose to-one relationship points here (a product's structure items elsewhere, a group's
   * products). GraphQL only; by name (snake_case, as the spec would spell it).
   */
  reverseLinks?: Record<string, ReverseLink>;
  /**
   * The resource this one belongs to, through a foreign key the spec does not list as a
   * relationship: a structure's product, an item's structure. GraphQL only, by name.
   */
  ownerLinks?: Record<string, OwnerLink>;
}

/** A to-one link to the owning resource, stored in `column` of this resource's table. */
export interface OwnerLink {
  target: string;
  column: string;
}

/** The resources of `type` whose to-one `relationship` (a foreign key) points at this resource. */
export interface ReverseLink {
  type: string;
  relationship: string;
}
