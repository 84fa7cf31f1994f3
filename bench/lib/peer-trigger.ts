/**
 * The peer given our guarantees by triggers (the `postgraphile+trigger` target, W5 only): the same
 * PostGraphile, whose updates of a product now also move `version` and `modified_date` (a BEFORE
 * trigger), append an audit row with the whole row before and after, and NOTIFY (an AFTER
 * trigger), in the update's transaction: what a team would add to PostGraphile to get a change
 * history and live notifications. The triggers fire only for the connections of that server
 * (`application_name`), so the plain peer and our server write as before (each of their updates
 * costs PostgreSQL the triggers' WHEN test, a comparison). The audit table lives in a schema of
 * its own, which PostGraphile does not expose, and everything is removed at the end of the run.
 */
import pg from 'pg';

export const PEER_TRIGGER_APPLICATION = 'bench_peer_trigger';

const WHEN = `WHEN (current_setting('application_name') = '${PEER_TRIGGER_APPLICATION}')`;

const INSTALL = `
CREATE SCHEMA IF NOT EXISTS bench_peer;
CREATE TABLE IF NOT EXISTS bench_peer.audit (
  id bigserial PRIMARY KEY, table_name text NOT NULL, row_id int NOT NULL,
  before jsonb NOT NULL, after jsonb NOT NULL, at timestamptz NOT NULL DEFAULT now());
CREATE OR REPLACE FUNCTION bench_peer.versioned() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  NEW.modified_date := now();
  RETURN NEW;
END $$;
CREATE OR REPLACE FUNCTION bench_peer.audited() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO bench_peer.audit (table_name, row_id, before, after) VALUES (TG_TABLE_NAME, NEW.id, to_jsonb(OLD), to_jsonb(NEW));
  PERFORM pg_notify('bench_peer_changes', TG_TABLE_NAME || ':' || NEW.id || ':' || NEW.version);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS bench_peer_versioned ON products;
CREATE TRIGGER bench_peer_versioned BEFORE UPDATE ON products FOR EACH ROW ${WHEN} EXECUTE FUNCTION bench_peer.versioned();
DROP TRIGGER IF EXISTS bench_peer_audited ON products;
CREATE TRIGGER bench_peer_audited AFTER UPDATE ON products FOR EACH ROW ${WHEN} EXECUTE FUNCTION bench_peer.audited();
`;

const REMOVE = `
DROP TRIGGER IF EXISTS bench_peer_versioned ON products;
DROP TRIGGER IF EXISTS bench_peer_audited ON products;
DROP SCHEMA IF EXISTS bench_peer CASCADE;
`;

async function run(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export const installPeerTriggers = (url: string) => run(url, INSTALL);
export const removePeerTriggers = (url: string) => run(url, REMOVE);

/** How many audit rows the triggers wrote: one per update the peer made. */
export async function peerAuditRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM bench_peer.audit');
    return Number(rows[0]!.n);
  } finally {
    await client.end();
  }
}
