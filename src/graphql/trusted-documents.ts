/**
 * Trusted documents (docs/guides/trusted-documents.md): per API client, the GraphQL documents it
 * registered (`npm run client -- documents add`, from GraphQL Code Generator's
 * `persisted-documents.json`), each by its id, `sha256:` and the SHA-256 of its text in hex.
 *
 * - A request may name a document by its id instead of sending its text: `documentId` (POST
 *   body, GET query string, a WebSocket subscribe), or Apollo's automatic persisted queries
 *   (`extensions.persistedQuery.sha256Hash`). An id the client has not registered is
 *   PERSISTED_QUERY_NOT_FOUND; with its text beside it (APQ's second try), the text runs when its
 *   hash is that id and the client's mode lets text run.
 * - The client's mode (`npm run client -- documents mode`): `off`, any document runs; `log`, any
 *   runs, and those it has not registered are counted and logged; `enforce`, only those it
 *   registered, by id or as text: anything else is TRUSTED_DOCUMENT_REQUIRED.
 * - Registration validates each document against the client's role, as a request would be:
 *   what would not run is refused with the reasons, and nothing is stored.
 * - Each replica counts the uses of each document and writes them every few seconds.
 *
 * A plugin of the pipeline (./pipeline.ts): it finds a request's text before anything else.
 */
import { createHash } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { BearerAuth } from '../auth/tokens.ts';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/client.ts';
import { Sql } from '../db/sql.ts';
import type { Logger } from '../observability/logger.ts';
import type { Access } from '../permissions/access.ts';
import { type OperationRequest, type PipelinePlugin, type Refusal, refusal } from './pipeline.ts';
import { schemaFor } from './role-schema.ts';
import { quoted } from '../words.ts';
import { parseDocument, validateDocument, validationRules } from './validation.ts';

/** How long a client's registered documents are kept without reading them again. */
const KEPT_MS = 5000;
/** How often each replica writes the uses it counted. */
const USES_WRITTEN_MS = 5000;
/** The form of a document's id. */
const DOCUMENT_ID = /^sha256:[0-9a-f]{64}$/;

/** A document's id: `sha256:` and the SHA-256 of its text, in hex. */
export function documentId(text: string): string {
  return `sha256:${createHash('sha256').update(text).digest('hex')}`;
}

/** The id a request names: its `documentId`, or APQ's hash. */
function idOf(request: OperationRequest): string | undefined {
  if (request.documentId !== undefined) return request.documentId;
  const apq = request.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined;
  return typeof apq?.sha256Hash === 'string' ? `sha256:${apq.sha256Hash}` : undefined;
}

/** A client's registered documents as a replica keeps them: the read, and its answer once it came. */
interface KeptDocuments {
  at: number;
  documents: Promise<Map<string, string>>;
  read?: Map<string, string>;
}

export class TrustedDocuments implements PipelinePlugin {
  /** Per API client: its registered documents (id -> text), and when they were read. */
  private readonly kept = new Map<number, KeptDocuments>();
  /** Uses counted since the last write: client -> id -> count. */
  private uses = new Map<number, Map<string, number>>();
  /** The unregistered documents of `log` clients already logged (client:id), bounded. */
  private readonly logged = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The text of the request's document, or why it is refused; undefined: its text, as sent. */
  document(request: OperationRequest): string | Refusal | undefined | Promise<string | Refusal | undefined> {
    const { auth } = request;
    const id = idOf(request);
    if (id === undefined && auth.documents === 'off') return undefined;
    // Synchronous while the client's documents are kept: a request by id costs no turn of the loop.
    const documents = this.documentsOf(auth.clientId);
    return documents instanceof Map
      ? this.find(request, auth, id, documents)
      : documents.then((read) => this.find(request, auth, id, read));
  }

  private find(
    request: OperationRequest,
    auth: BearerAuth,
    id: string | undefined,
    documents: ReadonlyMap<string, string>,
  ): string | Refusal | undefined {
    if (id !== undefined) {
      if (!DOCUMENT_ID.test(id))
        return refusal('BAD_REQUEST', `a document's id is "sha256:" and 64 hex digits (got ${quoted(id)})`);
      const registered = documents.get(id);
      if (registered !== undefined) {
        if (request.query !== undefined && request.query !== registered)
          return refusal('BAD_REQUEST', `the query sent is not the document ${id}`);
        this.used(auth.clientId, id);
        return registered;
      }
      // APQ's second try: the text with its hash, for a client that may run texts.
      if (request.query === undefined || auth.documents === 'enforce')
        return refusal('PERSISTED_QUERY_NOT_FOUND', `no document ${id} is registered for this client`);
      if (documentId(request.query) !== id)
        return refusal('BAD_REQUEST', `the query's SHA-256 is not ${id}: send the document the hash was made of`);
    }
    const text = request.query;
    if (text === undefined) return undefined;
    const textId = id ?? documentId(text);
    if (documents.get(textId) === text) {
      this.used(auth.clientId, textId);
      return undefined;
    }
    if (auth.documents === 'enforce')
      return refusal(
        'TRUSTED_DOCUMENT_REQUIRED',
        `this client runs only the documents it registered (npm run client -- documents add): ${textId} is not one of them`,
      );
    if (auth.documents === 'log') this.untrusted(auth.clientId, textId);
    return undefined;
  }

  /**
   * A client's registered documents, read at most every KEPT_MS (and again once forgotten): the
   * map itself once read, else the read under way.
   */
  private documentsOf(clientId: number): Map<string, string> | Promise<Map<string, string>> {
    const now = this.clock.now().getTime();
    const kept = this.kept.get(clientId);
    if (kept && now - kept.at < KEPT_MS) return kept.read ?? kept.documents;
    // The primary: a registration is seen at once, not once a read replica has replayed it.
    const entry: KeptDocuments = {
      at: now,
      documents: this.db.primary
        .query<{ id: string; text: string }>(
          new Sql(this.db.provider)
            .text('SELECT "id", "text" FROM "trusted_documents" WHERE "api_client_id" = ')
            .value(clientId),
        )
        .then((rows) => (entry.read = new Map(rows.map((row) => [row.id, row.text])))),
    };
    // A failed read is not kept: the next request reads again.
    entry.documents.catch(() => {
      if (this.kept.get(clientId) === entry) this.kept.delete(clientId);
    });
    this.kept.set(clientId, entry);
    return entry.documents;
  }

  /** Forgets every client's documents: registrations or modes changed (announced by the CLI). */
  forget(): void {
    this.kept.clear();
  }

  private used(clientId: number, id: string): void {
    let byId = this.uses.get(clientId);
    if (!byId) this.uses.set(clientId, (byId = new Map()));
    byId.set(id, (byId.get(id) ?? 0) + 1);
    if (!this.timer) {
      this.timer = setTimeout(() => void this.writeUses(), USES_WRITTEN_MS);
      this.timer.unref();
    }
  }

  private untrusted(clientId: number, id: string): void {
    const key = `${clientId}:${id}`;
    if (this.logged.has(key)) return;
    if (this.logged.size >= 10_000) this.logged.clear();
    this.logged.add(key);
    this.logger.warn(
      { clientId, documentId: id },
      'a client in documents mode log ran a document it has not registered',
    );
  }

  /** Writes the uses counted so far, in one transaction. */
  async writeUses(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const uses = this.uses;
    if (uses.size === 0) return;
    this.uses = new Map();
    const at = this.clock.now();
    try {
      await this.db.transaction(async (tx) => {
        for (const [clientId, byId] of uses)
          for (const [id, count] of byId)
            await tx.execute(
              new Sql(tx.provider)
                .text('UPDATE "trusted_documents" SET "uses" = "uses" + ')
                .value(count)
                .text(', "last_used_date" = ')
                .value(at)
                .text(' WHERE "api_client_id" = ')
                .value(clientId)
                .text(' AND "id" = ')
                .value(id),
            );
      });
    } catch (error) {
      this.logger.warn({ err: error }, 'the uses of trusted documents could not be written');
    }
  }
}

/** A document a client may not register, and why (each reason on a line of its own). */
export interface RefusedDocument {
  id: string;
  reasons: string[];
}

/**
 * The documents of a `persisted-documents.json` checked for a client's role: each id must be its
 * text's, and each text must validate against the schema of the role, as a request would. The
 * refused ones, with their reasons: none, and they may be registered.
 */
export function refusedDocuments(
  documents: Readonly<Record<string, unknown>>,
  access: Access | undefined,
  introspection: boolean,
): RefusedDocument[] {
  const schema = schemaFor(access);
  const rules = validationRules(introspection);
  const refused: RefusedDocument[] = [];
  for (const [id, text] of Object.entries(documents)) {
    if (typeof text !== 'string') {
      refused.push({ id, reasons: ['its text is not a string'] });
      continue;
    }
    if (id !== documentId(text)) {
      refused.push({ id, reasons: [`its id is not "sha256:" and the SHA-256 of its text (${documentId(text)})`] });
      continue;
    }
    const document = parseDocument(text);
    const errors =
      document instanceof GraphQLError ? [document] : validateDocument(schema, document, rules, introspection);
    if (errors.length > 0) refused.push({ id, reasons: errors.map((e) => e.message) });
  }
  return refused;
}

// The registry, as `npm run client -- documents` keeps it ------------------------------------------

/** A client's registered document, as `documents list` shows it. */
export interface RegisteredDocument {
  id: string;
  uses: number;
  lastUsed: Date | null;
  registered: Date;
  /** The document's first line, for people. */
  summary: string;
}

/**
 * Registers the documents of a `persisted-documents.json` for a client, all or none: those
 * already registered stay, the others are added. Throws DocumentsRefused naming each that would
 * not run under the client's role. Answers how many were added.
 */
export async function registerDocuments(
  db: Database,
  clientRowId: number,
  documents: Readonly<Record<string, unknown>>,
  access: Access | undefined,
  introspection: boolean,
): Promise<number> {
  const refused = refusedDocuments(documents, access, introspection);
  if (refused.length > 0) throw new DocumentsRefused(refused);
  const known = new Set(
    (await db.prisma.trustedDocument.findMany({ where: { api_client_id: clientRowId }, select: { id: true } })).map(
      (d: { id: string }) => d.id,
    ),
  );
  const added = Object.entries(documents).filter(([id]) => !known.has(id));
  if (added.length > 0)
    await db.prisma.trustedDocument.createMany({
      data: added.map(([id, text]) => ({ api_client_id: clientRowId, id, text: text as string })),
    });
  return added.length;
}

/** Documents a registration refused, each with its reasons. */
export class DocumentsRefused extends Error {
  constructor(readonly refused: readonly RefusedDocument[]) {
    super(
      `nothing was registered: ${refused.length} of the documents would not run for this client\n${refused
        .map((r) => `${r.id}:\n  ${r.reasons.join('\n  ')}`)
        .join('\n')}`,
    );
  }
}

export async function listDocuments(db: Database, clientRowId: number): Promise<RegisteredDocument[]> {
  const rows = await db.prisma.trustedDocument.findMany({
    where: { api_client_id: clientRowId },
    orderBy: { id: 'asc' },
  });
  return rows.map(
    (row: { id: string; uses: number; last_used_date: Date | null; created_date: Date; text: string }) => ({
      id: row.id,
      uses: row.uses,
      lastUsed: row.last_used_date,
      registered: row.created_date,
      summary: row.text.replace(/\s+/g, ' ').slice(0, 60),
    }),
  );
}

/** Removes a client's document; whether there was one. */
export async function removeDocument(db: Database, clientRowId: number, id: string): Promise<boolean> {
  const { count } = await db.prisma.trustedDocument.deleteMany({ where: { api_client_id: clientRowId, id } });
  return count > 0;
}
