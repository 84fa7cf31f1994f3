-- Nothing on SQLite: the PostgreSQL migration of this name changes what the change log's
-- numbering notifies (read replicas, which SQLite has none of). Kept so that both providers have
-- the same migrations.
SELECT 1;
