/**
 * REST GET answers as the bytes of their JSON, with the resource objects in them kept as bytes
 * between requests.
 *
 * A resource object is a function of its type, id and version and of the API's base URL (its
 * `links.self`): every write that changes what a resource's document shows gives it a new
 * version, in the write's transaction (src/data/writes.ts; test/changes/every-write.test.ts
 * checks it for every write operation), and the single resource's entity tag already rests on
 * that. So a resource object shown again at the same version (a page read again, an included
 * unit that half the page points at) is neither built from its row nor serialized: its bytes
 * are copied. On a page of 50 products (56 KB), building and serializing the objects were a
 * fifth of the server's CPU.
 *
 * For the same reason a document's bytes are a function of its text outside resource objects and
 * of the keys (version and self link) of the resource objects in it: its `fingerprint`, from
 * which its entity tag is taken (./conditional.ts) without reading the bytes.
 *
 * Bounded by bytes, keys included (RESOURCE_BYTES_KEPT); when full, the entries kept longest go
 * first. After the data was replaced under a running server at the same versions (`seed
 * --replace`, a restore from a backup), restart it (docs/reference/commands.md, "Demo and benchmark data"). The bytes are byte for byte what
 * `JSON.stringify` makes of the document.
 */
import { BoundedCache } from '../bounded-cache.ts';

/** At most this many bytes of resource objects are kept (per process). */
export const RESOURCE_BYTES_KEPT = 8 * 1024 * 1024;

/** The text between two resource objects of a list, shared rather than made for each. */
const COMMA = Buffer.from(',');

/** A resource object as its JSON bytes, and the key they are a function of. */
export class ResourceJson {
  constructor(
    /** Its version and self link. */
    readonly key: string,
    readonly bytes: Buffer<ArrayBuffer>,
  ) {}

  /** Serialized plainly (outside documentJson), it is the resource object it holds. */
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8'));
  }
}

/** A GET answer's JSON: its bytes in order, and what they are a function of. */
export interface DocumentJson {
  parts: Buffer<ArrayBuffer>[];
  /**
   * The text outside resource objects, with each resource object's key in its place: two
   * documents with the same fingerprint have the same bytes.
   */
  fingerprint: string;
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

  /**
   * The resource object at `version` whose link is `self`: copied when kept, else made by `make`,
   * serialized and kept. `variant`: what else it is a function of (a role's view of it:
   * Documents.resourcesJson).
   */
  resource(version: number, self: string, make: () => object, variant?: string): ResourceJson {
    const key = variant ? `${version} ${self} ${variant}` : `${version} ${self}`;
    let bytes = this.kept.get(key);
    if (!bytes) {
      const json = JSON.stringify(make());
      // Memory of its own: a small Buffer.from is a slice of a shared 8 KiB pool, which a kept
      // slice would hold whole.
      bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
      bytes.write(json);
      this.kept.set(key, bytes);
    }
    return new ResourceJson(key, bytes);
  }
}

/**
 * `JSON.stringify(document)` in parts, where `data` and `included` may hold resource objects as
 * JSON (one, or an array of them); every other value is serialized as it is.
 */
export function documentJson(document: Record<string, unknown>): DocumentJson {
  const parts: Buffer<ArrayBuffer>[] = [];
  let fingerprint = '';
  let text = '{';
  /** The text so far, then the resource object's bytes (its key in the fingerprint). */
  const emit = (resource: ResourceJson) => {
    parts.push(text === ',' ? COMMA : Buffer.from(text));
    // No NUL in JSON text or in a key (a number and a URL): the fingerprint reads one way.
    fingerprint += `${text}\0${resource.key}\0`;
    parts.push(resource.bytes);
    text = '';
  };
  for (const [key, value] of Object.entries(document)) {
    if (value === undefined) continue;
    text += `${text === '{' ? '' : ','}${JSON.stringify(key)}:`;
    const holdsResources = key === 'data' || key === 'included';
    if (holdsResources && value instanceof ResourceJson) emit(value);
    else if (holdsResources && Array.isArray(value) && value.every((v) => v instanceof ResourceJson)) {
      text += '[';
      value.forEach((resource, i) => {
        if (i > 0) text += ',';
        emit(resource);
      });
      text += ']';
    } else text += JSON.stringify(value);
  }
  text += '}';
  parts.push(Buffer.from(text));
  return { parts, fingerprint: fingerprint + text };
}
