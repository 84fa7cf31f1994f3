-- Nothing on SQLite. PostgreSQL's migration of this name puts each history table's valid_from and
-- valid_to first, where PostgreSQL reads them at a fixed offset; SQLite finds any column of a row
-- through the row's header, wherever it is.
SELECT 1;
