/**
 * What the service adds to the master-data spec is marked as such in both APIs' own descriptions
 * (a description's `extension`), in the same words, so that a client can tell the old interface's
 * floor from what it may only find here. Registry-driven: an extension added later is covered here
 * without a line of this file changing.
 */
import type { GraphQLObjectType } from 'graphql';
import type { SchemaObject } from 'openapi3-ts/oas31';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/graphql/schema.ts';
import { extensionNote } from '../src/resources/extensions.ts';
import { attributeField, camel, typeName } from '../src/resources/names.ts';
import { resourceByType, resources } from '../src/resources/registry.ts';
import type { ResourceDefinition } from '../src/resources/types.ts';
import { openApiDocument } from '../src/rest/openapi.ts';
import { resourceSchemas } from '../src/rest/openapi/schemas.ts';

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
  it.skipIf(attributes.length === 0).each(attributes)(
    '%s says so in OpenAPI and in the SDL',
    (_label, resource, name, why) => {
      const n = typeName(resource.type);
      const read = components[`${n}Attributes`]!.properties![name] as SchemaObject;
      const write = components[`${n}AttributesInput`]!.properties![name] as SchemaObject;
      expect(read.description).toContain(extensionNote(why));
      expect(write.description).toContain(extensionNote(why));
      const field = attributeField(resource, name, resource.attributes[name]!.column);
      expect(objectType(resource.type).getFields()[field]!.description).toBe(extensionNote(why));
    },
  );

  const relationships = resources.flatMap((r) =>
    Object.entries(r.relationships)
      .filter(([, rel]) => rel.extension !== undefined)
      .map(([name, rel]) => [`${r.type}.${name}`, r, name, rel.extension!] as const),
  );
  it.skipIf(relationships.length === 0).each(relationships)(
    '%s says so in OpenAPI and in the SDL',
    (_label, resource, name, why) => {
      const relationshipsSchema = components[`${typeName(resource.type)}Relationships`]!;
      expect((relationshipsSchema.properties![name] as SchemaObject).description).toContain(extensionNote(why));
      expect(objectType(resource.type).getFields()[camel(name)]!.description).toBe(extensionNote(why));
    },
  );

  it("OpenAPI describes an extension attribute and relationship with the note, and the spec's own without it", () => {
    const products = resourceByType('products')!;
    const extended: ResourceDefinition = {
      ...products,
      attributes: {
        ...products.attributes,
        country_of_origin: { ...products.attributes.intrastat_code!, extension: 'where the product is made' },
      },
      relationships: {
        ...products.relationships,
        successor: { ...products.relationships.brand!, target: 'products', extension: 'the product that replaces it' },
      },
    };
    const schemas = resourceSchemas(extended);
    const attributesOf = (name: string) => schemas[name]!.properties as Record<string, SchemaObject>;
    expect(attributesOf('ProductAttributes').country_of_origin!.description).toBe(
      extensionNote('where the product is made'),
    );
    expect(attributesOf('ProductAttributesInput').country_of_origin!.description).toContain(
      extensionNote('where the product is made'),
    );
    expect(attributesOf('ProductAttributes').intrastat_code!.description ?? '').not.toContain(NOTE);
    expect(attributesOf('ProductRelationships').successor!.description).toBe(
      extensionNote('the product that replaces it'),
    );
    expect(attributesOf('ProductRelationships').brand!.description ?? '').not.toContain(NOTE);
  });
});
