/**
 * The roles a running service enforces: read from the database once, kept in memory, read again
 * when they change. On PostgreSQL every change (`roles apply`, `client set-role`, on any replica or
 * the CLI) is announced on ROLES_CHANNEL and every replica forgets what it kept at once; while the
 * listening connection is down, and on SQLite (whose other writer is the CLI), what is kept is
 * trusted for KEPT_MS at most.
 */
import type { PrismaDb } from '../db/client.ts';
import { listen, type Listener } from '../db/notifications.ts';
import type { Provider } from '../db/url.ts';
import { Access, accessOf } from './access.ts';
import { ADMIN, parseRoleFile, type Role } from './roles.ts';
import { ROLES_CHANNEL } from './store.ts';

/** How long roles read are trusted without hearing of changes (SQLite; PostgreSQL while not listening). */
export const KEPT_MS = { heard: Number.POSITIVE_INFINITY, unheard: 1000, sqlite: 5000 } as const;

/** A role a client has but the database no longer defines: it may do nothing (deny by default). */
const NOTHING = (name: string) => new Access({ name, rules: new Map() });

export class RoleBook {
  private kept: Promise<Map<string, Access>> | undefined;
  private keptAt = 0;
  private hearing = false;

  constructor(
    private readonly prisma: PrismaDb,
    private readonly provider: Provider,
  ) {}

  /** The Access of the role `name`: undefined for admin, which may do everything. */
  async access(name: string): Promise<Access | undefined> {
    if (name === ADMIN) return undefined;
    this.reloadIfStale();
    const asked = performance.now();
    let access = (await this.kept!).get(name);
    // A role not known here may have been made since it was read (roles apply, then client create):
    // read again, unless a read began after this request asked (it would find the role).
    if (!access && this.keptAt < asked) {
      this.reload();
      access = (await this.kept!).get(name);
    }
    return access ?? NOTHING(name);
  }

  /**
   * The roles as kept now, to look up without reading the database: inside a transaction that
   * holds SQLite's one connection, a read of the roles would wait for it forever. A role not kept
   * may do nothing.
   */
  async lookup(): Promise<(name: string) => Access | undefined> {
    this.reloadIfStale();
    const kept = await this.kept!;
    return (name) => (name === ADMIN ? undefined : (kept.get(name) ?? NOTHING(name)));
  }

  private reloadIfStale(): void {
    const limit = this.provider === 'sqlite' ? KEPT_MS.sqlite : this.hearing ? KEPT_MS.heard : KEPT_MS.unheard;
    if (!this.kept || performance.now() - this.keptAt >= limit) this.reload();
  }

  private reload(): void {
    this.keptAt = performance.now();
    const reading = this.read();
    this.kept = reading;
    // A failed read (the database away) is not kept: the next request reads again.
    reading.catch(() => {
      if (this.kept === reading) this.kept = undefined;
    });
  }

  /**
   * Every role but admin, parsed as `roles apply` checked it. A stored role this version cannot
   * read (a field since removed) may do nothing until it is applied again.
   */
  private async read(): Promise<Map<string, Access>> {
    const rows = await this.prisma.role.findMany();
    return new Map(
      rows.map((r) => {
        let role: Role | undefined;
        try {
          [role] = parseRoleFile({ roles: { [r.name]: JSON.parse(r.rules) } });
        } catch {
          role = undefined;
        }
        return [r.name, role ? accessOf(role)! : NOTHING(r.name)];
      }),
    );
  }

  /** Forgets what it kept: the next request reads the roles again. */
  forget(): void {
    this.kept = undefined;
  }

  /** PostgreSQL: hears every role change announced anywhere, on a connection of its own to `url`. */
  follow(url: string, onError: (error: Error) => void): Listener {
    return listen(url, ROLES_CHANNEL, {
      onNotification: () => this.forget(),
      onConnected: () => {
        this.forget();
        this.hearing = true;
      },
      onError: (error) => {
        this.hearing = false;
        onError(error);
      },
    });
  }
}
