/**
 * Webhook endpoints as their owners manage them, for both APIs (REST /webhooks, GraphQL
 * `webhooks` and its mutations): each API client sees and changes only its own. The surfaces
 * turn what is here into their documents; the checks and the rules live here once.
 *
 * An endpoint's input: `url`, `types` (resource types, spec names; empty: all), `ops`
 * (created, updated, deleted; empty: all), `where` (per type, a filter of the `where` language
 * on the resource as it is after the change, before it for deletions: its own fields and its
 * to-one relationships' ids), `description`, `is_active`. What the owner's role may not read
 * cannot be asked for (403), as on /changes.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import { checkCursor, formatCursor, logPosition } from '../data/changes.ts';
import { DomainError } from '../data/errors.ts';
import type { Database, PrismaDb } from '../db/client.ts';
import type { Access } from '../permissions/access.ts';
import { ownRowOnly, WhereInputError } from '../query/where.ts';
import { resourceByType } from '../resources/registry.ts';
import { CHANGE_REQUESTS, LOGGED_TYPES } from '../data/change-request-entries.ts';
import type { Targets } from './targets.ts';
import { typeWhere } from './where.ts';
import { quoted } from '../words.ts';

export const OPS = ['created', 'updated', 'deleted'] as const;
export type Op = (typeof OPS)[number];
const ATTRIBUTES = ['url', 'types', 'ops', 'where', 'description', 'is_active'];
const MAX_DESCRIPTION = 1000;
const MAX_URL = 2000;
/** A rotated secret still signs this long, so that receivers can move to the new one. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;
/** Endpoints per API client. */
export const MAX_ENDPOINTS_PER_CLIENT = 100;

export interface EndpointInput {
  url?: string;
  types?: string[];
  ops?: Op[];
  where?: Record<string, unknown> | null;
  description?: string | null;
  is_active?: boolean;
}

/** An endpoint as its owner sees it. */
export interface EndpointView {
  id: number;
  url: string;
  types: string[];
  ops: Op[];
  where: Record<string, unknown> | null;
  description: string | null;
  is_active: boolean;
  status: 'healthy' | 'failing' | 'disabled';
  created_date: Date;
  modified_date: Date;
  /** Only in the answers that make a secret: creation and rotation. */
  secret?: string;
}

type Row = Awaited<ReturnType<PrismaDb['webhookEndpoint']['findFirstOrThrow']>>;

function bad(
  field: string,
  message: string,
  reason: 'invalid_attribute' | 'unknown_field' | 'missing_field' = 'invalid_attribute',
) {
  return new DomainError('bad_input', `${field} ${message}`, field, undefined, reason);
}

/** A delivery's `webhook-id`: the same for every attempt and replay of one entry to one endpoint. */
export function messageId(webhook: number, seq: number): string {
  return `msg_${webhook}_${seq}`;
}

export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function viewOf(row: Row): EndpointView {
  return {
    id: row.id,
    url: row.url,
    types: JSON.parse(row.types) as string[],
    ops: JSON.parse(row.ops) as Op[],
    where: row.where_filter === null ? null : (JSON.parse(row.where_filter) as Record<string, unknown>),
    description: row.description,
    is_active: row.is_active,
    status: row.status as EndpointView['status'],
    created_date: row.created_date,
    modified_date: row.modified_date,
  };
}

function stringList(value: unknown, field: string, allowed: readonly string[], what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw bad(field, `must be an array of ${what} (got ${quoted(value)})`);
  const unknown = (value as string[]).find((v) => !allowed.includes(v));
  if (unknown !== undefined) throw bad(field, `names ${quoted(unknown)}, not one of ${allowed.join(', ')}`);
  return [...new Set(value as string[])];
}

function checkWhere(
  value: unknown,
  types: readonly string[],
  access: Access | undefined,
): Record<string, unknown> | null {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw bad('where', 'must be an object of filters by resource type, e.g. {"products": {"is_active": true}}');
  for (const [type, input] of Object.entries(value)) {
    const field = `where.${type}`;
    if (type === CHANGE_REQUESTS)
      throw bad(field, 'change requests cannot be filtered: an endpoint gets all those its owner may see, or none');
    if (!resourceByType(type)) throw bad(field, 'names no resource type');
    if (types.length > 0 && !types.includes(type)) throw bad(field, `filters ${type}, which is not among types`);
    if (access && !access.can(type, 'read'))
      throw new DomainError('forbidden', `the role ${access.name} may not use ${type}`, field);
    try {
      // What the owner's role may not see cannot be named, as if it did not exist (src/webhooks/where.ts).
      if (!ownRowOnly(typeWhere(type, input, access)))
        throw bad(field, "may name the resource's own fields and its to-one relationships' ids only");
    } catch (error) {
      if (error instanceof WhereInputError) throw bad(error.path, error.reason);
      throw error;
    }
  }
  return value as Record<string, unknown>;
}

/** Checks an endpoint's input (all of it on creation, what is given on change). */
export async function checkInput(
  input: unknown,
  {
    creating,
    access,
    targets,
    current,
  }: { creating: boolean; access: Access | undefined; targets: Targets; current?: EndpointView },
): Promise<EndpointInput> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad('input', 'must be an object');
  const given = input as Record<string, unknown>;
  const unknown = Object.keys(given).find((key) => !ATTRIBUTES.includes(key));
  if (unknown)
    throw bad(unknown, `is not an attribute of webhooks; they have ${ATTRIBUTES.join(', ')}`, 'unknown_field');
  const checked: EndpointInput = {};
  if ('url' in given || creating) {
    if (typeof given.url !== 'string' || given.url.length === 0 || given.url.length > MAX_URL)
      throw bad(
        'url',
        `is required: a URL of at most ${MAX_URL} characters`,
        given.url === undefined ? 'missing_field' : 'invalid_attribute',
      );
    const problem = await targets.problemWith(given.url);
    if (problem) throw bad('url', problem);
    checked.url = given.url;
  }
  if ('types' in given && given.types !== null) {
    checked.types = stringList(given.types, 'types', LOGGED_TYPES, 'resource types');
    // Change requests go to their author and approvers, whatever the role (src/data/change-request-entries.ts).
    const unreadable = access && checked.types.find((type) => type !== CHANGE_REQUESTS && !access.can(type, 'read'));
    if (unreadable) throw new DomainError('forbidden', `the role ${access!.name} may not use ${unreadable}`, 'types');
  }
  if ('ops' in given && given.ops !== null) checked.ops = stringList(given.ops, 'ops', OPS, 'operations') as Op[];
  if ('where' in given) checked.where = checkWhere(given.where, checked.types ?? current?.types ?? [], access);
  else if (checked.types && current?.where) checkWhere(current.where, checked.types, access);
  if ('description' in given) {
    const d = given.description;
    if (d !== null && (typeof d !== 'string' || d.length > MAX_DESCRIPTION))
      throw bad('description', `must be text of at most ${MAX_DESCRIPTION} characters, or null`);
    checked.description = d as string | null;
  }
  if ('is_active' in given) {
    if (typeof given.is_active !== 'boolean') throw bad('is_active', 'must be true or false');
    checked.is_active = given.is_active;
  }
  return checked;
}

/** The owner's endpoints and what it may do with them. */
export class Endpoints {
  constructor(
    private readonly db: Database,
    private readonly targets: Targets,
    private readonly clock: Clock,
    /**
     * Told of every change to an endpoint, and awaited: a deliverer of it on this replica has
     * acted on the change (stopped, started again) before the change is answered.
     */
    private readonly changed: (id: number) => Promise<void> = async () => {},
  ) {}

  private get prisma(): PrismaDb {
    return this.db.prisma;
  }

  async list(owner: number, page: number, perPage: number): Promise<{ views: EndpointView[]; total: number }> {
    const where = { api_client_id: owner };
    const [rows, total] = await Promise.all([
      this.prisma.webhookEndpoint.findMany({
        where,
        orderBy: { id: 'asc' },
        skip: (page - 1) * perPage,
        take: perPage,
      }),
      this.prisma.webhookEndpoint.count({ where }),
    ]);
    return { views: rows.map(viewOf), total };
  }

  /** The owner's endpoint `id`; not_found when there is none (also when another client owns it). */
  async row(owner: number, id: number): Promise<Row> {
    const row = await this.prisma.webhookEndpoint.findFirst({ where: { id, api_client_id: owner } });
    if (!row) throw new DomainError('not_found', `webhooks ${id} not found`, undefined, { type: 'webhooks', id });
    return row;
  }

  async get(owner: number, id: number): Promise<EndpointView> {
    return viewOf(await this.row(owner, id));
  }

  async create(owner: number, access: Access | undefined, input: unknown): Promise<EndpointView> {
    const checked = await checkInput(input, { creating: true, access, targets: this.targets });
    if ((await this.prisma.webhookEndpoint.count({ where: { api_client_id: owner } })) >= MAX_ENDPOINTS_PER_CLIENT)
      throw new DomainError('conflict', `an API client may have at most ${MAX_ENDPOINTS_PER_CLIENT} webhooks`);
    const secret = newSecret();
    const now = this.clock.now();
    // From the log's position now: an endpoint is told of what happens after it was made.
    const row = await this.prisma.webhookEndpoint.create({
      data: {
        api_client_id: owner,
        url: checked.url!,
        types: JSON.stringify(checked.types ?? []),
        ops: JSON.stringify(checked.ops ?? []),
        where_filter: checked.where ? JSON.stringify(checked.where) : null,
        description: checked.description ?? null,
        is_active: checked.is_active ?? true,
        secret,
        cursor: await logPosition(this.db.primary),
        created_date: now,
        modified_date: now,
      },
    });
    await this.changed(row.id);
    return { ...viewOf(row), secret };
  }

  async update(owner: number, access: Access | undefined, id: number, input: unknown): Promise<EndpointView> {
    const current = await this.row(owner, id);
    const checked = await checkInput(input, {
      creating: false,
      access,
      targets: this.targets,
      current: viewOf(current),
    });
    const reactivated = checked.is_active === true && !current.is_active;
    // Enabled again where the log no longer holds what it has not received: it starts from now.
    const lost = reactivated && (await this.expired(current.cursor));
    const row = await this.prisma.webhookEndpoint.update({
      where: { id },
      data: {
        ...(checked.url !== undefined && { url: checked.url }),
        ...(checked.types !== undefined && { types: JSON.stringify(checked.types) }),
        ...(checked.ops !== undefined && { ops: JSON.stringify(checked.ops) }),
        ...(checked.where !== undefined && { where_filter: checked.where ? JSON.stringify(checked.where) : null }),
        ...(checked.description !== undefined && { description: checked.description }),
        ...(checked.is_active !== undefined && { is_active: checked.is_active }),
        // Enabled again: it goes on from where it stopped, with a fresh count of failing days.
        ...(reactivated && { status: 'healthy', failing_since: null }),
        ...(lost && { cursor: await logPosition(this.db.primary) }),
        generation: { increment: 1 },
        modified_date: this.clock.now(),
      },
    });
    await this.changed(id);
    return viewOf(row);
  }

  /** Whether the log no longer holds what comes after `cursor`. */
  private async expired(cursor: number): Promise<boolean> {
    try {
      await checkCursor(this.db.primary, cursor);
      return false;
    } catch (error) {
      if (error instanceof DomainError && error.kind === 'cursor_expired') return true;
      throw error;
    }
  }

  async remove(owner: number, id: number): Promise<void> {
    await this.row(owner, id);
    await this.prisma.webhookEndpoint.delete({ where: { id } });
    await this.changed(id);
  }

  /** A new secret; the one before it signs too for PREVIOUS_SECRET_MS. */
  async rotateSecret(owner: number, id: number): Promise<EndpointView> {
    const current = await this.row(owner, id);
    const secret = newSecret();
    const now = this.clock.now();
    const row = await this.prisma.webhookEndpoint.update({
      where: { id },
      data: {
        secret,
        previous_secret: current.secret,
        previous_secret_until: new Date(now.getTime() + PREVIOUS_SECRET_MS),
        generation: { increment: 1 },
        modified_date: now,
      },
    });
    await this.changed(id);
    return { ...viewOf(row), secret };
  }

  /**
   * Sends again everything after `after` that the log still holds, in order: the endpoint's
   * cursor goes back, and what was delivered or dead-lettered after it is forgotten (its
   * attempts stay on record). cursor_expired when the log no longer reaches back that far.
   */
  async replay(owner: number, id: number, after: number): Promise<{ after: string }> {
    await this.row(owner, id);
    await checkCursor(this.db.primary, after);
    // The endpoint's row first: its lock waits for a flush of the deliverer's records in progress
    // (src/webhooks/recorder.ts), so that the delete below sees what that flush wrote; the
    // generation moved, later flushes of the running deliverer are dropped.
    await this.prisma.$transaction([
      this.prisma.webhookEndpoint.update({
        where: { id },
        data: { cursor: after, generation: { increment: 1 }, modified_date: this.clock.now() },
      }),
      // What is retried now starts over, or is passed by (an `after` past it).
      this.prisma.webhookDelivery.deleteMany({
        where: { webhook_id: id, OR: [{ seq: { gt: after } }, { status: 'retrying' }] },
      }),
    ]);
    await this.changed(id);
    return { after: formatCursor(after) };
  }

  /** The endpoint's deliveries, newest first, each with its attempts (oldest first). */
  async deliveries(owner: number, id: number, page: number, perPage: number) {
    await this.row(owner, id);
    const where = { webhook_id: id };
    const [rows, total] = await Promise.all([
      this.prisma.webhookDelivery.findMany({
        where,
        orderBy: { seq: 'desc' },
        skip: (page - 1) * perPage,
        take: perPage,
      }),
      this.prisma.webhookDelivery.count({ where }),
    ]);
    const attempts = await this.prisma.webhookAttempt.findMany({
      where: { webhook_id: id, seq: { in: rows.map((r) => r.seq) } },
      orderBy: { id: 'asc' },
    });
    return {
      total,
      deliveries: rows.map((row) => ({
        ...row,
        attempt_log: attempts.filter((a) => a.seq === row.seq),
      })),
    };
  }
}
