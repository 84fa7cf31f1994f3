/**
 * REST documents as the bytes of their JSON, with the resource objects in them kept as bytes
 * between requests.
 *
 * A resource object is a function of its type, id and version and of the API's base URL (its
 * `links.self`): every write that changes what a resource's document shows gives it a new
 * version, in the write's transaction (src/data/writes.ts; test/changes/every-write.test.ts
 * checks it for every write operation), and the single resource's entity tag already rests on
 * that. So a resource object shown again at the same version (a page read again, an included
 * unit that half the page points at) is copied from its bytes instead of serialized: on a page
 * of 50 products (56 KB), JSON.stringify and UTF-8 encoding were a fifth of the server's CPU.
 *
 * Bounded by bytes, keys included (RESOURCE_BYTES_KEPT); when full, the entries kept longest go
 * first. After the data was replaced under a running server at the same versions (`seed
 * --replace`, a restore from a backup), restart it (README). The output is byte for byte what
 * `JSON.stringify` makes of the document, so entity tags taken from the bytes do not change.
 */
import { BoundedCache } from '../bounded-cache.ts';
import type { ResourceObject } from './documents.ts';

/** At most this many bytes of resource objects are kept (per process). */
export const RESOURCE_BYTES_KEPT = 8 * 1024 * 1024;

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

function isResourceObject(value: unknown): value is ResourceObject {
  const v = value as Partial<ResourceObject> | null;
  return (
    typeof v === 'object' && v !== null && typeof v.links?.self === 'string' && typeof v.meta?.version === 'number'
  );
}

/** What an entry holds: its bytes and its key (two bytes a character). */
function keptWeight(key: string, bytes: Buffer): number {
  return bytes.length + 2 * key.length;
}

export class DocumentBytes {
  private readonly kept: BoundedCache<string, Buffer<ArrayBuffer>>;

  constructor(maxBytes = RESOURCE_BYTES_KEPT) {
    this.kept = new BoundedCache<string, Buffer<ArrayBuffer>>(keptWeight, maxBytes);
  }

  /** What is kept, in bytes (keys included). */
  get keptBytes(): number {
    return this.kept.keptWeight;
  }

  /** `JSON.stringify(document)` as UTF-8, its resource objects (in `data` and `included`) copied when kept. */
  of(document: unknown): Buffer<ArrayBuffer> {
    if (typeof document !== 'object' || document === null || Array.isArray(document))
      return Buffer.from(JSON.stringify(document));
    const parts: Buffer<ArrayBuffer>[] = [];
    let text = '{';
    for (const [key, value] of Object.entries(document)) {
      if (value === undefined) continue;
      text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
      const resources = (key === 'data' || key === 'included') && this.resourcesOf(value);
      if (!resources) {
        text += JSON.stringify(value);
        continue;
      }
      parts.push(Buffer.from(text));
      text = '';
      parts.push(...resources);
    }
    parts.push(Buffer.from(`${text}}`));
    return Buffer.concat(parts);
  }

  /** The bytes of a resource object or of an array of them; undefined for anything else. */
  private resourcesOf(value: unknown): Buffer<ArrayBuffer>[] | undefined {
    if (isResourceObject(value)) return [this.resource(value)];
    if (!Array.isArray(value) || !value.every(isResourceObject)) return undefined;
    const parts = [OPEN];
    value.forEach((resource, i) => {
      if (i > 0) parts.push(COMMA);
      parts.push(this.resource(resource));
    });
    parts.push(CLOSE);
    return parts;
  }

  private resource(resource: ResourceObject): Buffer<ArrayBuffer> {
    const key = `${resource.meta.version} ${resource.links.self}`;
    let bytes = this.kept.get(key);
    if (bytes) return bytes;
    const json = JSON.stringify(resource);
    // Memory of its own: a small Buffer.from is a slice of a shared 8 KiB pool, which a kept
    // slice would hold whole.
    bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
    bytes.write(json);
    this.kept.set(key, bytes);
    return bytes;
  }
}
