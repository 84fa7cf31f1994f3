-- A scheduled change request is claimed by a lock on its row in the transaction that applies it
-- (src/change-requests/scheduler.ts): a replica that dies holding one gives it up with its
-- connection, not after a lease runs out.
ALTER TABLE "change_requests" DROP COLUMN "lease_owner",
DROP COLUMN "lease_until";

-- The instant of a write: its transaction's start, unless the transaction set a later one
-- (`mdg.write_instant`: requests made ready before their instant are written at it), in UTC to
-- the millisecond (src/db/history.ts).
CREATE OR REPLACE FUNCTION write_instant() RETURNS timestamp(3) LANGUAGE sql STABLE
  AS $$ SELECT COALESCE(NULLIF(current_setting('mdg.write_instant', true), '')::timestamp(3), (now() AT TIME ZONE 'UTC')::timestamp(3)) $$;
