package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of CREATE, INSERT, UPDATE, DELETE and MERGE, run by SQE and by DuckDB (in
 * process) as the reference. Each sequence starts a new table, with its own layout (unpartitioned,
 * partitioned by a column or by a transform, sorted) and, through several small inserts, many data
 * files; the rows have NULLs, duplicate keys, and struct, list and map columns. After every
 * statement both engines must report the same row count and hold the same rows, and DuckDB's read
 * of SQE's Parquet files must agree with Iceberg's reader.
 *
 * <p>DuckDB does not check MERGE's cardinality. So before each MERGE, DuckDB counts the target
 * rows that more than one source row matches; when there are some (and the statement has a
 * MATCHED clause other than a lone unconditional DELETE), SQE must fail the statement and leave
 * the table as it was, and DuckDB does not run it.
 *
 * <p>The seed is printed; {@code -Dsqe.dml.seed=...} replays it, {@code -Dsqe.dml.statements=...}
 * changes how many statements run.
 */
class DmlVersusDuckDbTest {
  private static final int STATEMENTS = Integer.getInteger("sqe.dml.statements", 2000);
  private static final List<String> LAYOUTS = List.of(
      "",
      " partitioned by (grp)",
      " partitioned by (bucket(3, id))",
      " partitioned by (month(d), grp)",
      " partitioned by (truncate(2, grp)) sorted by (n desc)",
      " sorted by (id)");
  private static final String COLUMNS =
      "(id bigint, grp varchar, amount decimal(10, 2), d date, n int, s row(a int, b varchar), l array(int), m map(varchar, int))";

  /** What a statement is, for the summary. */
  private enum Kind { CREATE, INSERT, UPDATE, DELETE, MERGE, FAILED_MERGE }

  @TempDir Path dir;

  @Test
  void randomStatementsAgreeWithDuckDb() throws Exception {
    try (Lakehouse lake = new Lakehouse(dir); ReferenceDuckDb duck = new ReferenceDuckDb()) {
      run("DmlVersusDuckDbTest", lake, duck, STATEMENTS);
    }
  }

  /**
   * Runs {@code statements} random statements through {@code lake} and {@code duck}, printing the
   * seed under {@code name}; other setups (another catalog, object storage) run the same test
   * through it.
   */
  static void run(String name, Lakehouse lake, ReferenceDuckDb duck, int statements) {
    long seed = Long.getLong("sqe.dml.seed", System.nanoTime());
    System.out.println(name + " seed: " + seed + " (replay with -Dsqe.dml.seed=" + seed + ")");
    long started = System.nanoTime();
    Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    createSource(lake, duck);
    Run run = new Run(new Random(seed), lake, duck, seed, counts, statements);
    int sequence = 0;
    while (run.statements < statements) {
      run.sequence("t" + sequence++, 10 + run.random.nextInt(25));
    }
    System.out.printf("%s: %d statements %s in %.1f s%n",
        name, counts.values().stream().mapToInt(Integer::intValue).sum(), counts, (System.nanoTime() - started) / 1e9);
  }

  /**
   * The MERGE source {@code u}: keys 0 to 40 with gaps, two keys twice and a NULL key, nested
   * values including maps (which only reach the targets from here).
   */
  private static void createSource(Lakehouse lake, ReferenceDuckDb duck) {
    lake.update("create table u (id bigint, amount decimal(10, 2), op varchar, s row(a int, b varchar), l array(int),"
        + " m map(varchar, int))");
    lake.update("insert into u values"
        + " (1, 10.5, 'u', row(1, 'u1'), array[1], map['a', 1]), (2, 20, 'd', null, array[2, 2], map['b', 2, 'c', 3]),"
        + " (4, -4.25, 'i', row(4, cast(null as varchar)), null, null), (5, 50, 'x', row(5, 'u5'), array[cast(null as int)], map['e', 5]),"
        + " (7, 70.75, 'u', row(7, 'u7'), array[7, 8, 9], map['f', cast(null as int)]), (8, 0, 'd', row(8, 'u8'), array[8], map['g', 8]),"
        + " (11, 11.11, 'i', null, null, map['h', 11]), (12, 120, 'u', row(12, 'u12'), array[12], map['i', 12]),"
        + " (15, 15, 'x', row(15, 'u15'), array[15], null), (17, 1.7, 'd', row(17, 'u17'), array[17], map['j', 17]),"
        + " (20, 200, 'i', row(20, 'u20'), array[20], map['k', 20]), (23, 23.23, 'u', null, array[23], map['l', 23]),"
        + " (26, -26, 'i', row(26, 'u26'), array[26, 27], map['m', 26]), (29, 290, 'x', row(29, cast(null as varchar)), null, map['n', 29]),"
        + " (33, 33, 'u', row(33, 'u33'), array[33], map['o', 33]), (38, 380, 'i', row(38, 'u38'), array[38], map['p', 38]),"
        + " (8, 8.8, 'i', row(80, 'u80'), array[80], map['q', 80]), (26, 2.6, 'x', null, array[260], null),"
        + " (null, 99, 'i', row(99, 'u99'), array[99], map['r', 99])");
    duck.copy(lake.table("u"), "u");
  }

  /** One run of random statements; every generated piece of SQL is valid in both engines. */
  private static final class Run {
    final Random random;
    final Lakehouse lake;
    final ReferenceDuckDb duck;
    final long seed;
    final Map<Kind, Integer> counts;
    final List<String> history = new ArrayList<>();
    final int limit;
    int statements;
    String table;

    Run(Random random, Lakehouse lake, ReferenceDuckDb duck, long seed, Map<Kind, Integer> counts, int limit) {
      this.limit = limit;
      this.random = random;
      this.lake = lake;
      this.duck = duck;
      this.seed = seed;
      this.counts = counts;
    }

    /** Creates table {@code name} and runs about {@code length} statements on it. */
    void sequence(String name, int length) {
      String previous = table;
      table = name;
      history.clear();
      String layout = pick(LAYOUTS);
      if (previous != null && random.nextInt(3) == 0) {
        String where = random.nextBoolean() ? "" : " where " + predicate("x");
        run(Kind.CREATE, "create table " + name + layout + " as select * from " + previous + " as x" + where,
            "create table " + name + " as select * from " + previous + " as x" + where);
      } else {
        // DuckDB's table gets the same columns, by Iceberg's types.
        run(Kind.CREATE, "create table " + name + " " + COLUMNS + layout, null);
      }
      // A few inserts first, so the table has several data files from the start.
      for (int i = 0; i < 3; i++) {
        statement(Kind.INSERT, insertValues(2 + random.nextInt(5)));
      }
      for (int i = 3; i < length && statements < limit; i++) {
        int choice = random.nextInt(20);
        if (choice < 3) {
          statement(Kind.INSERT, insertValues(1 + random.nextInt(3)));
        } else if (choice < 5) {
          statement(Kind.INSERT, insertSelect());
        } else if (choice < 10) {
          statement(Kind.UPDATE, update());
        } else if (choice < 13) {
          statement(Kind.DELETE, delete());
        } else {
          merge();
        }
      }
    }

    private void statement(Kind kind, String sql) {
      run(kind, sql, sql);
    }

    /**
     * Runs a statement on both engines (DuckDB's version may differ; null creates DuckDB's table
     * like SQE's) and compares the tables.
     */
    private void run(Kind kind, String sqe, String duckSql) {
      history.add(sqe);
      long ours;
      try {
        ours = lake.update(sqe);
      } catch (RuntimeException e) {
        throw new AssertionError("SQE failed on " + sqe + context(), e);
      }
      if (duckSql == null) {
        duck.copy(lake.table(table), table);
      } else {
        long theirs = duck.update(duckSql);
        if (kind == Kind.CREATE) {
          // DuckDB reports no row count for CREATE TABLE AS.
          theirs = Long.parseLong(duck.rows("select count(*) from " + table).get(0));
        }
        assertThat(ours).as("row count of %s%s", sqe, context()).isEqualTo(theirs);
      }
      compare(sqe);
      count(kind);
    }

    private void count(Kind kind) {
      counts.merge(kind, 1, Integer::sum);
      statements++;
    }

    private void compare(String after) {
      duck.assertSameRows(lake.table(table), table, after + context());
    }

    private String context() {
      return "\n(seed " + seed + ", statement " + statements + "; this table's statements:\n  " + String.join(";\n  ", history) + ")";
    }

    // ---------------------------------------------------------------- INSERT

    private String insertValues(int rows) {
      List<String> values = new ArrayList<>();
      boolean allColumns = random.nextInt(3) > 0;
      for (int i = 0; i < rows; i++) {
        values.add(allColumns
            ? "(" + String.join(", ", id(), grp(), amount(), date(), small(), struct(), list(), "null") + ")"
            : "(" + id() + ", " + amount() + ", " + struct() + ")");
      }
      return "insert into " + table + (allColumns ? "" : " (id, amount, s)") + " values " + String.join(", ", values);
    }

    private String insertSelect() {
      if (random.nextInt(3) == 0) {
        // From the table itself: copies of its rows with new keys.
        return "insert into " + table + " select id + " + (50 + random.nextInt(50)) + ", grp, amount, d, n, s, l, m from " + table
            + " as x where " + predicate("x");
      }
      return "insert into " + table + " (id, grp, amount, s, l, m) select id, upper(op), amount * " + pick("1", "2", "1.5", "-1")
          + ", s, l, m from u as x where " + predicate("x", true);
    }

    // ---------------------------------------------------------------- UPDATE and DELETE

    private String update() {
      if (random.nextInt(4) == 0) {
        return "update " + table + " as t set amount = (select max(u.amount) from u where u.id = t.id)"
            + " where t.id in (select id from u where op = " + pick("'u'", "'d'", "'i'", "'x'") + ")";
      }
      return "update " + table + " as t set " + String.join(", ", assignments(false)) + " where " + predicate("t");
    }

    private String delete() {
      return switch (random.nextInt(4)) {
        case 0 -> "delete from " + table + " as t where exists (select 1 from u where u.id = t.id and u.op = " + pick("'u'", "'d'", "'i'") + ")";
        case 1 -> "delete from " + table + " as t where t.id in (select id + " + random.nextInt(3) + " from u where " + predicate("u", true) + ")";
        default -> "delete from " + table + " as t where " + predicate("t");
      };
    }

    // ---------------------------------------------------------------- MERGE

    private void merge() {
      String source = pick(
          "u",
          "(select * from u where " + predicate("u", true) + ")",
          "(select * from u as x where x.amount = (select max(y.amount) from u as y where y.id = x.id))",
          "(with w as (select * from u where op <> " + pick("'x'", "'d'") + ") select id, amount, op, s, l, m from w)",
          "(select id + " + random.nextInt(3) + " as id, amount, grp as op, s, l, m from " + table + " as x where " + predicate("x") + ")");
      String on = "t.id = src.id" + pick("", "", " and src.op <> 'x'", " and t.n is not null", " and src.amount > t.amount");
      List<Clause> clauses = clauses();
      StringBuilder sql = new StringBuilder("merge into " + table + " as t using " + source + " as src on " + on);
      clauses.forEach(c -> sql.append(c.sql));
      String merge = sql.toString();
      long doublyMatched = Long.parseLong(duck.rows("select count(*) from (select t.rowid from " + table + " as t join " + source
          + " as src on " + on + " group by t.rowid having count(*) > 1)").get(0));
      List<Clause> matched = clauses.stream().filter(c -> c.kind.equals("matched")).toList();
      boolean loneDelete = matched.size() == 1 && matched.get(0).unconditionalDelete;
      if (doublyMatched > 0 && !matched.isEmpty() && !loneDelete) {
        history.add(merge + " -- fails");
        Table before = lake.table(table);
        long snapshot = before.currentSnapshot().snapshotId();
        assertThatThrownBy(() -> lake.update(merge))
            .as("MERGE with %s doubly matched target rows%s", doublyMatched, context())
            .isInstanceOfSatisfying(SqeException.class, e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
              assertThat(e.getMessage()).contains("matched one target row with more than one source row");
            });
        assertThat(lake.table(table).currentSnapshot().snapshotId()).as("snapshot after a failed MERGE").isEqualTo(snapshot);
        compare(merge);
        count(Kind.FAILED_MERGE);
        return;
      }
      if (doublyMatched > 0) {
        // DuckDB counts a row deleted once per matching source row; SQE counts it once.
        history.add(merge);
        lake.update(merge);
        duck.update(merge);
        compare(merge);
        count(Kind.MERGE);
        return;
      }
      statement(Kind.MERGE, merge);
    }

    private record Clause(String kind, String sql, boolean unconditionalDelete) {}

    /**
     * One to five clauses. An unconditional clause comes after the conditional ones of its kind:
     * DuckDB moves it there anyway (MergeTest covers the other order).
     */
    private List<Clause> clauses() {
      List<Clause> conditional = new ArrayList<>();
      List<Clause> unconditional = new ArrayList<>();
      int count = 1 + random.nextInt(5);
      for (int i = 0; i < count; i++) {
        String kind = pick("matched", "matched", "not matched", "not matched by source");
        boolean conditionless = random.nextInt(3) == 0;
        if (conditionless && unconditional.stream().anyMatch(c -> c.kind.equals(kind))) {
          continue;
        }
        // No struct fields in WHEN conditions: DuckDB 1.4.4 fails to bind them there.
        String condition = conditionless ? "" : " and " + switch (kind) {
          case "matched" -> random.nextBoolean() ? predicate("src", true, false) : predicate("t", false, false);
          case "not matched" -> predicate("src", true, false);
          default -> predicate("t", false, false);
        };
        boolean delete = !kind.equals("not matched") && random.nextInt(3) == 0;
        String action = switch (kind) {
          case "matched" -> delete ? "delete" : "update set " + String.join(", ", assignments(true));
          case "not matched" -> insertAction();
          default -> delete ? "delete" : "update set " + String.join(", ", assignments(false));
        };
        Clause clause = new Clause(kind, " when " + kind + condition + " then " + action, conditionless && delete);
        (conditionless ? unconditional : conditional).add(clause);
      }
      conditional.addAll(unconditional);
      return conditional;
    }

    private String insertAction() {
      List<String> columns = new ArrayList<>();
      List<String> values = new ArrayList<>();
      add(columns, values, "id", pick("src.id", "src.id", "src.id + 100", "null"));
      add(columns, values, "grp", pick("src.op", "'new'", "upper(src.op)"));
      add(columns, values, "amount", pick("src.amount", "src.amount * 1.5", "-1"));
      add(columns, values, "d", pick("date '2024-05-05'", "null"));
      add(columns, values, "n", pick("1", "length(src.op)"));
      add(columns, values, "s", pick("src.s", "row(1, src.op)"));
      add(columns, values, "l", pick("src.l", "array[2, 3]"));
      add(columns, values, "m", "src.m");
      if (columns.isEmpty()) { // add() keeps a column only two times in three
        columns.add("id");
        values.add("src.id");
      }
      return "insert (" + String.join(", ", columns) + ") values (" + String.join(", ", values) + ")";
    }

    private void add(List<String> columns, List<String> values, String column, String value) {
      if (random.nextInt(3) > 0) {
        columns.add(column);
        values.add(value);
      }
    }

    /** SET assignments, of target values and (when {@code fromSource}) of the MERGE source's. */
    private List<String> assignments(boolean fromSource) {
      List<String> result = new ArrayList<>();
      while (result.isEmpty()) {
        if (random.nextInt(2) == 0) {
          result.add("amount = " + pick("t.amount + 1.25", "t.amount * 1.5", "null", "-t.amount", fromSource ? "src.amount" : "7.5"));
        }
        if (random.nextInt(3) == 0) {
          result.add("n = " + pick("coalesce(t.n, 0) + 1", "t.n - 1", "null", fromSource ? "length(src.op)" : "3"));
        }
        if (random.nextInt(4) == 0) {
          result.add("grp = " + pick("'g1'", "null", "t.grp || 'x'", fromSource ? "src.op" : "'g2'"));
        }
        if (random.nextInt(5) == 0) {
          result.add("d = " + pick("t.d + interval '1' day", "date '2024-02-29'", "null"));
        }
        if (random.nextInt(5) == 0) {
          // ROW with a non-NULL field: SQE (Calcite) makes an all-NULL ROW(...) a NULL struct.
          result.add("s = " + pick("row(t.n, 'set')", "null", fromSource ? "src.s" : "row(1, 'one')"));
        }
        if (random.nextInt(5) == 0) {
          result.add("l = " + pick("array[t.n]", "null", fromSource ? "src.l" : "array[1, 2, 3]"));
        }
        if (random.nextInt(6) == 0) {
          result.add("m = " + (fromSource ? pick("src.m", "null") : "null"));
        }
      }
      return result;
    }

    // ---------------------------------------------------------------- values and predicates

    private String predicate(String alias) {
      return predicate(alias, false);
    }

    private String predicate(String alias, boolean source) {
      return predicate(alias, source, true);
    }

    /**
     * A condition on a target row (or, for {@code source}, a row of {@code u}) under {@code alias},
     * with or without conditions on struct fields.
     */
    private String predicate(String alias, boolean source, boolean structFields) {
      String a = alias + ".";
      List<Supplier<String>> atoms = new ArrayList<>(List.of(
          () -> a + "id " + pick("<", ">", "=", "<>") + " " + random.nextInt(40),
          () -> "mod(" + a + "id, " + (2 + random.nextInt(4)) + ") = " + random.nextInt(2),
          () -> a + "amount " + pick("<", ">") + " " + (random.nextInt(400) - 50),
          () -> a + "id is null",
          () -> a + "s is " + pick("", "not ") + "null"));
      if (structFields) {
        atoms.add(() -> a + "s.a " + pick("<", ">") + " " + random.nextInt(30));
      }
      if (source) {
        atoms.add(() -> a + "op = " + pick("'u'", "'d'", "'i'", "'x'"));
        atoms.add(() -> a + "op in ('u', 'i')");
      } else {
        atoms.add(() -> a + "grp = " + pick("'g0'", "'g1'", "'g2'", "'g3'"));
        atoms.add(() -> a + "grp is null");
        atoms.add(() -> a + "n " + pick("<", ">", "=") + " " + random.nextInt(12));
        atoms.add(() -> a + "n is null");
        atoms.add(() -> a + "d " + pick("<", ">=") + " date '2024-02-" + (10 + random.nextInt(19)) + "'");
      }
      String first = pick(atoms).get();
      return switch (random.nextInt(6)) {
        case 0 -> first + " and " + pick(atoms).get();
        case 1 -> "(" + first + " or " + pick(atoms).get() + ")";
        case 2 -> "not (" + first + ")";
        default -> first;
      };
    }

    private String id() {
      return random.nextInt(10) == 0 ? "null" : Integer.toString(random.nextInt(40));
    }

    private String grp() {
      return random.nextInt(8) == 0 ? "null" : "'g" + random.nextInt(4) + "'";
    }

    private String amount() {
      if (random.nextInt(8) == 0) {
        return "null";
      }
      int cents = random.nextInt(80_000) - 20_000;
      return (cents < 0 ? "-" : "") + Math.abs(cents) / 100 + "." + String.format("%02d", Math.abs(cents) % 100);
    }

    private String date() {
      return random.nextInt(8) == 0 ? "null" : "date '2024-0" + (1 + random.nextInt(3)) + "-" + String.format("%02d", 1 + random.nextInt(28)) + "'";
    }

    private String small() {
      return random.nextInt(6) == 0 ? "null" : Integer.toString(random.nextInt(12));
    }

    /**
     * A struct value. Not ROW(NULL, ...) with a NULL number: Calcite 1.41 casts the fields of a
     * ROW without a NULL check, so such rows fail whenever VALUES rows need a common type.
     */
    private String struct() {
      return switch (random.nextInt(5)) {
        case 0 -> "null";
        case 1 -> "row(" + random.nextInt(30) + ", cast(null as varchar))";
        default -> "row(" + random.nextInt(30) + ", 'b" + random.nextInt(9) + "')";
      };
    }

    private String list() {
      return switch (random.nextInt(5)) {
        case 0 -> "null";
        case 1 -> "array[" + random.nextInt(9) + ", cast(null as int)]";
        default -> "array[" + random.nextInt(9) + ", " + random.nextInt(9) + "]";
      };
    }

    @SafeVarargs
    private <T> T pick(T... choices) {
      return choices[random.nextInt(choices.length)];
    }

    private <T> T pick(List<T> choices) {
      return choices.get(random.nextInt(choices.size()));
    }
  }
}
