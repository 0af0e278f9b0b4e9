/* Drives Debian's libsqlite3.a: an in-memory database with a table, an
 * index, inserts in a transaction, joins, aggregates and sorting. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static int print_row(void *arg, int n, char **v, char **names)
{
	(void)arg, (void)names;
	for (int i = 0; i < n; i++)
		printf("%s%s", i ? " | " : "", v[i] ? v[i] : "NULL");
	putchar('\n');
	return 0;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	if (sqlite3_exec(db, sql, print_row, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "sqlite: %s\n", err);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	/* argv[1]: repetitions of the queries, for benchmarks */
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	sqlite3 *db;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK)
		return 1;
	exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, score REAL);"
		 "CREATE TABLE g(id INTEGER PRIMARY KEY, label TEXT);"
		 "CREATE INDEX t_grp ON t(grp);");
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "INSERT INTO t(name, grp, score) VALUES(?, ?, ?)", -1, &st, NULL);
	exec(db, "BEGIN");
	unsigned x = 1;
	for (int i = 0; i < 3000; i++) {
		char name[32];
		x = x * 1103515245u + 12345u;
		snprintf(name, sizeof(name), "item%05u", (x >> 8) % 100000);
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int(st, 2, (int)((x >> 16) % 17));
		sqlite3_bind_double(st, 3, (double)((x >> 4) % 1000) / 10.0);
		sqlite3_step(st);
		sqlite3_reset(st);
	}
	exec(db, "COMMIT");
	sqlite3_finalize(st);
	for (int i = 0; i < 17; i++) {
		char sql[128];
		snprintf(sql, sizeof(sql), "INSERT INTO g VALUES(%d, 'group-%c')", i, 'A' + i);
		exec(db, sql);
	}
	for (int r = 1; r < reps; r++) {
		sqlite3_exec(db, "SELECT g.label, count(*), avg(t.score) FROM t JOIN g ON g.id = t.grp GROUP BY g.label "
				 "ORDER BY count(*) DESC", NULL, NULL, NULL);
		sqlite3_exec(db, "SELECT name FROM t WHERE grp = 3 ORDER BY score DESC, name", NULL, NULL, NULL);
	}
	exec(db, "SELECT g.label, count(*), printf('%.2f', avg(t.score)), max(t.name) FROM t JOIN g ON g.id = t.grp "
		 "GROUP BY g.label ORDER BY count(*) DESC, g.label LIMIT 6;");
	exec(db, "SELECT name, score FROM t WHERE grp = 3 AND score > 90 ORDER BY score DESC, name LIMIT 5;");
	exec(db, "SELECT count(DISTINCT name), sum(length(name)), printf('%.1f', total(score)) FROM t;");
	exec(db, "UPDATE t SET score = score * 2 WHERE grp < 5; DELETE FROM t WHERE score > 150;"
		 "SELECT count(*) FROM t;");
	sqlite3_close(db);
	return 0;
}
