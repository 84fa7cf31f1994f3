/**
 * A service that speaks the old interface as an import source (`npm run import -- --from-service
 * URL`): the old service itself, or this one's REST layer. An API client's credentials get a
 * token from `URL/oauth/token.php` (client_credentials; a new one when it expires), then each
 * type is read list page by list page (`?page=N&per_page=50`, the most the interface gives),
 * the next page asked for while this one is written.
 *
 * Documents carry every relationship as identifiers. The owner of a structure (its product) and
 * of an item (its structure) is not on their own documents: it is the product's
 * `product_structure` and the structure's `items`, read first (./records.ts importOrder puts the
 * owner first; an owner type not imported is read for its links alone).
 */
import { definition } from '../data/columns.ts';
import { resources } from '../resources/registry.ts';
import { fromFlat, type TransferRecord } from './records.ts';
import { SourceError, type ImportSource, type SourcePage } from './sources.ts';

/** The most rows a page of the old interface holds. */
const PER_PAGE = 50;

interface ResourceObject {
  type: string;
  id: number;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, { data?: unknown }>;
  meta?: { version?: number };
}

interface ListDocument {
  data: ResourceObject[];
  meta?: { total?: number; pages?: number };
}

export interface ServiceCredentials {
  clientId: string;
  clientSecret: string;
}

export function serviceSource(
  baseUrl: string,
  credentials: ServiceCredentials,
  types: readonly string[],
): ImportSource {
  const base = baseUrl.replace(/\/+$/, '');
  const client = new ServiceClient(base, credentials);
  /** A structure's product and an item's structure, by the owned resource's type and id. */
  const owners = new Map<string, Map<number, { name: string; id: number }>>();
  const read = new Set<string>();

  /** Remembers whom the resources a page's rows hold by a relationship of theirs belong to. */
  const noteOwned = (type: string, objects: readonly ResourceObject[]) => {
    for (const [name, rel] of Object.entries(definition(type).relationships)) {
      if (rel.storage.kind !== 'inverse' && rel.storage.kind !== 'children') continue;
      const owner = Object.entries(definition(rel.target).ownerLinks ?? {}).find(([, o]) => o.target === type);
      if (!owner) continue;
      let byId = owners.get(rel.target);
      if (!byId) owners.set(rel.target, (byId = new Map()));
      for (const object of objects) {
        const data = object.relationships?.[name]?.data;
        for (const target of Array.isArray(data) ? data : data ? [data] : [])
          byId.set(Number((target as { id: unknown }).id), { name: owner[0], id: Number(object.id) });
      }
    }
  };

  async function* pages(type: string): AsyncIterable<SourcePage> {
    // The owner's links come from its own documents: read them first when the owner is not imported before.
    for (const owner of Object.values(definition(type).ownerLinks ?? {}))
      if (!read.has(owner.target))
        for await (const page of client.list(owner.target)) noteOwned(owner.target, page.data);
    for await (const page of client.list(type)) {
      noteOwned(type, page.data);
      yield {
        records: page.data.map((object) => recordOf(type, object, owners.get(type)?.get(Number(object.id)))),
        places: page.data.map((object) => `${base}/${type}/${object.id}`),
      };
    }
    read.add(type);
  }

  return {
    name: base,
    types: types.length > 0 ? [...types] : resources.map((r) => r.type),
    keyed: false,
    total: (type) => client.total(type),
    pages,
  };
}

/** A resource object of the old interface as an import takes it: relationships kept on this side as ids. */
function recordOf(
  type: string,
  object: ResourceObject,
  owner: { name: string; id: number } | undefined,
): TransferRecord {
  const resource = definition(type);
  // JSON:API writes ids as strings ("17"); the old interface as integers: both are an id here.
  const flat: Record<string, unknown> = { id: asId(object.id), ...object.attributes };
  if (object.meta?.version !== undefined) flat.version = object.meta.version;
  for (const [name, value] of Object.entries(object.relationships ?? {})) {
    const rel = resource.relationships[name];
    // A relationship shown by its links alone says nothing of its value: it is left as it is.
    if (value?.data === undefined) continue;
    const data = value.data;
    if (rel?.storage.kind === 'foreignKey') flat[`${name}_id`] = data ? asId((data as { id: unknown }).id) : null;
    else if (rel?.storage.kind === 'join')
      flat[`${name}_ids`] = Array.isArray(data) ? data.map((d) => asId((d as { id: unknown }).id)) : [];
  }
  if (owner) flat[`${owner.name}_id`] = owner.id;
  return fromFlat(type, flat);
}

/** An id as an integer when it is one, in a number or in digits; anything else as it came, for the checks to name. */
function asId(value: unknown): unknown {
  return typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : value;
}

/** Requests to the service with a bearer token, taken again when it expires. */
class ServiceClient {
  private token: Promise<string> | undefined;

  constructor(
    private readonly base: string,
    private readonly credentials: ServiceCredentials,
  ) {}

  /** How many resources of `type` the service lists. */
  async total(type: string): Promise<number | undefined> {
    const first = await this.get<ListDocument>(`/${type}?page=1&per_page=1`);
    return first.meta?.total;
  }

  /** Every list page of `type`, the next asked for before this one is handed on. */
  async *list(type: string): AsyncIterable<ListDocument> {
    const url = (page: number) => `/${type}?page=${page}&per_page=${PER_PAGE}`;
    let next = this.get<ListDocument>(url(1));
    for (let page = 1; ; page++) {
      const document = await next;
      if (!Array.isArray(document.data)) throw new SourceError(`${this.base}${url(page)}: no data list in the answer`);
      // The page count when the service says it (it may give fewer rows a page than asked), else a full page.
      const pages = document.meta?.pages;
      const more = pages !== undefined ? page < pages : document.data.length === PER_PAGE;
      if (more) {
        next = this.get<ListDocument>(url(page + 1));
        // Read ahead while this page is written: a failure is reported when the page is reached.
        next.catch(() => {});
      }
      yield document;
      if (!more) return;
    }
  }

  private async get<T>(path: string, retried = false): Promise<T> {
    const token = await this.accessToken();
    const response = await fetch(`${this.base}${path}`, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/vnd.api+json' },
    });
    if (response.status === 401 && !retried) {
      this.token = undefined;
      return this.get(path, true);
    }
    if (!response.ok)
      throw new SourceError(`${this.base}${path} answered ${response.status}: ${await describe(response)}`);
    return (await response.json()) as T;
  }

  private accessToken(): Promise<string> {
    this.token ??= this.grant().catch((error) => {
      this.token = undefined;
      throw error;
    });
    return this.token;
  }

  private async grant(): Promise<string> {
    const { clientId, clientSecret } = this.credentials;
    const response = await fetch(`${this.base}/oauth/token.php`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
        'Cache-Control': 'no-cache',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' }).toString(),
    });
    if (!response.ok)
      throw new SourceError(
        `${this.base}/oauth/token.php refused the client: ${response.status} ${await describe(response)}`,
      );
    const { access_token: token } = (await response.json()) as { access_token?: string };
    if (!token) throw new SourceError(`${this.base}/oauth/token.php gave no access_token`);
    return token;
  }
}

/** An error answer in a line: its JSON error's message or detail, else its first characters. */
async function describe(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    return (
      body?.error?.message ??
      body?.errors?.detail ??
      body?.errors?.[0]?.detail ??
      body?.error_description ??
      text.slice(0, 200)
    );
  } catch {
    return text.slice(0, 200);
  }
}
