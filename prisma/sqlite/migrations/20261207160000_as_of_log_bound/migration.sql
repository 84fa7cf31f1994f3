-- Nothing on SQLite. PostgreSQL's migration of this name has its view of the change log as of an
-- instant compare with a bound its as-of read computes once; SQLite's view is a TEMP view of the
-- read's own connection (src/db/past.ts).
SELECT 1;
