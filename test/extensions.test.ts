/**
 * What the service adds to the master-data spec is marked as such in both APIs' own descriptions
 * (a description's `extension`), in the same words, so that a client can tell the old interface's
 * floor from what it may only find here. Registry-driven: every extension of the registry is
 * checked. The registry declares none of its own today, so the file gives products one attribute
 * and one relationship that are extensions (the registry module replaced for this file only):
 * the cases below are then generated from them, and from any real extension added later.
 */
import type { GraphQLObjectType } from 'graphql';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { describe, expect, it, vi } from 'vitest';
import { schema } from '../src/graphql/schema.ts';
import { extensionNote } from '../src/resources/extensions.ts';
import { attributeField, camel, typeName } from '../src/resources/names.ts';
import { resources } from '../src/resources/registry.ts';
import { openApiDocument } from '../src/rest/openapi.ts';

vi.mock('../src/resources/registry.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../src/resources/registry.ts')>();
  const extended = real.resources.map((r) =>
    r.type !== 'products'
      ? r
      : {
          ...r,
          attributes: Object.assign(Object.create(null), r.attributes, {
            country_of_origin: { ...r.attributes.intrastat_code!, extension: 'where the product is made' },
          }),
          relationships: Object.assign(Object.create(null), r.relationships, {
            successor: { ...r.relationships.brand!, target: 'products', extension: 'the product that replaces it' },
          }),
        },
  );
  return { ...real, resources: extended, resourceByType: (type: string) => extended.find((r) => r.type === type) };
});

const NOTE = 'Extension (not in the master-data spec)';
const components = openApiDocument().components!.schemas as Record<string, SchemaObject>;
const objectType = (type: string) => schema.getType(typeName(type)) as GraphQLObjectType;

describe('extensions', () => {
  it('the row version is one, in both APIs', () => {
    expect(components.ResourceMeta!.description).toContain(NOTE);
    for (const resource of resources)
      expect(objectType(resource.type).getFields().version!.description, resource.type).toContain(NOTE);
  });

  const attributes = resources.flatMap((r) =>
    Object.entries(r.attributes)
      .filter(([, a]) => a.extension !== undefined)
      .map(([name, a]) => [`${r.type}.${name}`, r, name, a.extension!] as const),
  );
  it('the registry holds extensions to check', () => {
    expect(attributes.length).toBeGreaterThan(0);
    expect(relationships.length).toBeGreaterThan(0);
  });

  it.each(attributes)('%s says so in OpenAPI and in the SDL', (_label, resource, name, why) => {
    const n = typeName(resource.type);
    const read = components[`${n}Attributes`]!.properties![name] as SchemaObject;
    const write = components[`${n}AttributesInput`]!.properties![name] as SchemaObject;
    expect(read.description).toContain(extensionNote(why));
    expect(write.description).toContain(extensionNote(why));
    const field = attributeField(resource, name, resource.attributes[name]!.column);
    expect(objectType(resource.type).getFields()[field]!.description).toBe(extensionNote(why));
  });

  const relationships = resources.flatMap((r) =>
    Object.entries(r.relationships)
      .filter(([, rel]) => rel.extension !== undefined)
      .map(([name, rel]) => [`${r.type}.${name}`, r, name, rel.extension!] as const),
  );
  it.each(relationships)('%s says so in OpenAPI and in the SDL', (_label, resource, name, why) => {
    const relationshipsSchema = components[`${typeName(resource.type)}Relationships`]!;
    expect((relationshipsSchema.properties![name] as SchemaObject).description).toContain(extensionNote(why));
    expect(objectType(resource.type).getFields()[camel(name)]!.description).toBe(extensionNote(why));
  });

  it("the spec's own attributes and relationships carry no note", () => {
    const n = typeName('products');
    const attributes = components[`${n}Attributes`]!.properties as Record<string, SchemaObject>;
    const links = components[`${n}Relationships`]!.properties as Record<string, SchemaObject>;
    expect(attributes.intrastat_code!.description ?? '').not.toContain(NOTE);
    expect(links.brand!.description ?? '').not.toContain(NOTE);
    expect(objectType('products').getFields().intrastatCode!.description ?? '').not.toContain(NOTE);
  });
});
