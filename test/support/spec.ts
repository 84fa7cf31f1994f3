/**
 * Reads the resource types, attributes and relationships out of the spec's "Resources and their
 * fields" section, as the spec spells them. Used to check the registry against the spec.
 */
import { readFileSync } from 'node:fs';

export interface SpecAttribute {
  name: string;
  /** The spec's type words: string, number, integer, boolean, localized text, object. */
  type: string;
  /** Fields of an object attribute, with their type words. */
  fields?: Record<string, string>;
}
export interface SpecRelationship {
  name: string;
  target: string;
  cardinality: 'to-one' | 'to-many';
}
export interface SpecType {
  type: string;
  attributes: SpecAttribute[];
  relationships: SpecRelationship[];
}

export const SPEC_PATH = new URL('../../docs/spec/master-data-api.md', import.meta.url);

function attributeFromTypeText(name: string, text: string): SpecAttribute {
  const typeText = text.split(';')[0]!.trim();
  if (typeText.startsWith('object')) {
    const fields = Object.fromEntries([...typeText.matchAll(/`([a-z_0-9]+)` ([a-z]+)/g)].map((m) => [m[1]!, m[2]!]));
    return { name, type: 'object', fields };
  }
  return { name, type: typeText };
}

export function readSpecTypes(path: URL = SPEC_PATH): SpecType[] {
  const text = readFileSync(path, 'utf8');
  const section = text.split('## Resources and their fields')[1]!.split('## States and transitions')[0]!;
  const types: SpecType[] = [];
  let current: SpecType[] = [];
  let table: 'attributes' | 'relationships' | null = null;
  for (const line of section.split('\n')) {
    if (line.startsWith('### ')) {
      current = [...line.matchAll(/`([a-z_]+)`/g)].map((m) => ({ type: m[1]!, attributes: [], relationships: [] }));
      types.push(...current);
      table = null;
      continue;
    }
    if (current.length === 0) continue;
    if (/^\| Attribute \| Type \|/.test(line)) {
      table = 'attributes';
      continue;
    }
    if (/^\| Relationship \| Target type \| Cardinality \|/.test(line)) {
      table = 'relationships';
      continue;
    }
    if (line.startsWith('|')) {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
      if (cells[0]!.startsWith('---')) continue;
      for (const t of current) {
        if (table === 'attributes') t.attributes.push(attributeFromTypeText(cells[0]!, cells[1]!));
        if (table === 'relationships') {
          t.relationships.push({
            name: cells[0]!,
            target: cells[1]!,
            cardinality: cells[2]!.startsWith('to-many') ? 'to-many' : 'to-one',
          });
        }
      }
      continue;
    }
    table = null;
    const [attributePart, relationshipPart] = line.split(/(?=Relationships? ?[(:])/);
    if (attributePart?.startsWith('Attributes')) {
      const allStrings = attributePart.startsWith('Attributes (all strings)');
      const matches = allStrings
        ? [...attributePart.matchAll(/`([a-z_0-9]+)`/g)].map((m) => attributeFromTypeText(m[1]!, 'string'))
        : [...attributePart.matchAll(/`([a-z_0-9]+)` ([a-z ]+?)(?=,|\.|$)/g)].map((m) =>
            attributeFromTypeText(m[1]!, m[2]!),
          );
      for (const t of current) t.attributes.push(...matches);
    }
    const relationshipText = attributePart?.startsWith('Relationship') ? attributePart : relationshipPart;
    if (relationshipText?.startsWith('Relationship')) {
      const heading = relationshipText.match(/^Relationships? \(([^)]*)\)/)?.[1] ?? '';
      for (const m of relationshipText.matchAll(/`([a-z_]+)` \(((to-one|to-many), )?([a-z_]+)/g)) {
        const cardinality = (m[3] ??
          (heading.includes('to-many') ? 'to-many' : 'to-one')) as SpecRelationship['cardinality'];
        for (const t of current) t.relationships.push({ name: m[1]!, target: m[4]!, cardinality });
      }
    }
  }
  return types;
}
