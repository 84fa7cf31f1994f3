-- Nothing on SQLite. PostgreSQL's migration of this name keeps a row's versions in time order when a
-- write waits for another's lock; SQLite has one writer at a time, whose instant is taken once it
-- holds the lock.
SELECT 1;
