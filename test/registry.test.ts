/**
 * The resource registry against the spec (every type, attribute and relationship, spelled as
 * the spec spells them) and against the Prisma model it maps to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../src/db/client.ts';
import { parseDatabaseUrl } from '../src/db/url.ts';
import { singular, singularOf, typeName } from '../src/resources/names.ts';
import { resourceByType, resources } from '../src/resources/registry.ts';
import type { Attribute } from '../src/resources/types.ts';
import { SPEC_PATH, readSpecTypes, type SpecAttribute } from './support/spec.ts';

const specTypes = readSpecTypes();

/** What a registry attribute type must be for a spec type word. */
function expectedType(attribute: SpecAttribute): Attribute['type'] {
  const scalar = (word: string) =>
    ({ string: 'string', number: 'decimal', integer: 'integer', boolean: 'boolean', 'localized text': 'localized' })[
      word
    ];
  if (attribute.type === 'object') {
    return {
      object: Object.fromEntries(Object.entries(attribute.fields!).map(([k, v]) => [k, scalar(v)!])),
    } as Attribute['type'];
  }
  // The spec types dates as strings; the registry knows they are server-maintained date-times.
  if (attribute.type === 'string' && attribute.name.endsWith('_date')) return 'datetime';
  return scalar(attribute.type) as Attribute['type'];
}

describe('registry against the spec', () => {
  // A clone without shared/ beside it has only the vendored copy.
  const shared = new URL('../../shared/spec/master-data-api.md', import.meta.url);
  it.runIf(existsSync(shared))('the vendored spec is the shared one', () => {
    expect(readFileSync(SPEC_PATH, 'utf8')).toBe(readFileSync(shared, 'utf8'));
  });

  // The spec is a floor: everything it lists is described, spelled as it spells it; the registry
  // may describe more, each marked `extension` (and shown so in OpenAPI and the SDL), and nothing
  // the spec lists is marked so. The count checks the spec's parser, not the registry.
  it('describes every resource type of the spec; any other is marked as an extension', () => {
    expect(specTypes.length).toBe(21);
    const specNames = new Set(specTypes.map((t) => t.type));
    for (const type of specNames) expect(resourceByType(type), type).toBeDefined();
    for (const resource of resources) {
      expect(resource.extension === undefined, `${resource.type}: extension marks exactly what the spec lacks`).toBe(
        specNames.has(resource.type),
      );
    }
  });

  describe.each(specTypes)('$type', (spec) => {
    const resource = resourceByType(spec.type)!;

    it('has every attribute of the spec with the spec type; any other is marked as an extension', () => {
      for (const attribute of spec.attributes) {
        expect(resource.attributes[attribute.name], attribute.name).toBeDefined();
        expect(resource.attributes[attribute.name]!.type, attribute.name).toEqual(expectedType(attribute));
      }
      const specNames = new Set(spec.attributes.map((a) => a.name));
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        expect(attribute.extension === undefined, `${name}: extension marks exactly what the spec lacks`).toBe(
          specNames.has(name),
        );
      }
    });

    it('has every relationship of the spec with its target and cardinality; any other is marked as an extension', () => {
      for (const { name, target, cardinality } of spec.relationships) {
        const described = resource.relationships[name];
        expect(described && { name, target: described.target, cardinality: described.cardinality }, name).toEqual({
          name,
          target,
          cardinality,
        });
      }
      const specNames = new Set(spec.relationships.map((r) => r.name));
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        expect(relationship.extension === undefined, `${name}: extension marks exactly what the spec lacks`).toBe(
          specNames.has(name),
        );
      }
    });
  });
});

// Building a client reads the data model; no query is sent.
const db = await createDatabase(parseDatabaseUrl('file:./data/never-opened.db'));

describe('registry against the Prisma model', () => {
  const models = (
    db.prisma as unknown as {
      _runtimeDataModel: {
        models: Record<string, { dbName: string; fields: { name: string; kind: string; type: string }[] }>;
      };
    }
  )._runtimeDataModel.models;
  const modelOf = (delegate: string) => {
    const name = Object.keys(models).find((m) => m[0]!.toLowerCase() + m.slice(1) === delegate);
    if (!name) throw new Error(`no Prisma model for ${delegate}`);
    return { name, ...models[name]! };
  };
  const PRISMA_TYPE = {
    string: 'String',
    integer: 'Int',
    decimal: 'Decimal',
    boolean: 'Boolean',
    datetime: 'DateTime',
  } as const;

  describe.each(resources.map((r) => [r.type, r] as const))('%s', (_type, resource) => {
    const model = modelOf(resource.model);
    const field = (name: string) => model.fields.find((f) => f.name === name);

    it('is stored in the table named after the type', () => {
      expect(model.dbName).toBe(resource.type);
    });

    it('stores every attribute in columns of the matching type', () => {
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        const columns: [string, string][] =
          attribute.type === 'localized'
            ? ['nl', 'fr', 'en', 'de'].map((l) => [`${attribute.column}_${l}`, 'String'])
            : typeof attribute.type === 'object'
              ? Object.entries(attribute.type.object).map(([f, t]) => [`${attribute.column}_${f}`, PRISMA_TYPE[t]])
              : [[attribute.column, PRISMA_TYPE[attribute.type]]];
        for (const [column, type] of columns) expect(field(column)?.type, `${name} -> ${column}`).toBe(type);
      }
    });

    it('stores every relationship where its storage says', () => {
      for (const [name, relationship] of Object.entries(resource.relationships)) {
        const target = resourceByType(relationship.target)!;
        const storage = relationship.storage;
        expect(field(storage.relation)?.kind, name).toBe('object');
        if (storage.kind === 'foreignKey') {
          expect(field(storage.column)?.type, name).toBe('Int');
          expect(field(storage.relation)?.type).toBe(modelOf(target.model).name);
        } else if (storage.kind === 'join') {
          const join = modelOf(storage.joinModel);
          expect(join.dbName, name).toBe(storage.joinTable);
          expect(join.fields.map((f) => f.name)).toEqual(
            expect.arrayContaining([storage.ownColumn, storage.targetColumn, storage.targetRelation]),
          );
          expect(join.fields.find((f) => f.name === storage.targetRelation)!.type).toBe(modelOf(target.model).name);
        } else {
          expect(modelOf(target.model).fields.find((f) => f.name === storage.targetColumn)?.type, name).toBe('Int');
        }
      }
    });

    it('has reverse links only through to-one foreign keys pointing at it', () => {
      for (const [name, link] of Object.entries(resource.reverseLinks ?? {})) {
        const relationship = resourceByType(link.type)?.relationships[link.relationship];
        expect(relationship?.target, name).toBe(resource.type);
        expect(relationship?.storage.kind, name).toBe('foreignKey');
      }
    });

    it('says an attribute may be null exactly where its column allows it', () => {
      const block = readFileSync(new URL('../prisma/models.prisma', import.meta.url), 'utf8')
        .split(`model ${model.name} {`)[1]!
        .split('\n}')[0]!;
      for (const [name, attribute] of Object.entries(resource.attributes)) {
        if (typeof attribute.type === 'object' || attribute.type === 'localized') continue;
        const line = block.split('\n').find((l) => l.trim().split(/\s+/)[0] === attribute.column);
        expect(line, name).toBeDefined();
        expect(/^\s*\S+\s+\S+\?/.test(line!), `${name}: ${line!.trim()}`).toBe(attribute.nullable);
      }
    });

    it('has owner links only through foreign key columns to their target', () => {
      for (const [name, link] of Object.entries(resource.ownerLinks ?? {})) {
        expect(field(link.column)?.type, name).toBe('Int');
        expect(
          model.fields.find((f) => f.kind === 'object' && f.type === modelOf(resourceByType(link.target)!.model).name),
          name,
        ).toBeDefined();
      }
    });

    it('allows includes only of its own relationships', () => {
      const { list, get, aliases = {}, update = [] } = resource.includes;
      const names = [
        ...list,
        ...get,
        ...update,
        ...Object.values(aliases.list ?? {}),
        ...Object.values(aliases.get ?? {}),
      ];
      for (const name of names) expect(resource.relationships, name).toHaveProperty(name);
      for (const [name, rel] of Object.entries(resource.relationships)) {
        for (const include of rel.relatedIncludes ?? [])
          expect(resourceByType(rel.target)!.relationships, `${name} -> ${include}`).toHaveProperty(include);
      }
    });
  });
});

describe('names', () => {
  it('a description states its singular where the rule would guess wrong; the rule covers the rest', () => {
    expect(singularOf({ type: 'boxes' })).toBe('boxe');
    expect(singularOf({ type: 'boxes', singular: 'box' })).toBe('box');
    expect(typeName('product_structure_items')).toBe('ProductStructureItem');
    expect(singular('currencies')).toBe('currency');
    expect(singular('addresses')).toBe('address');
  });
});
