package io.sqe.flight.fuzz;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Builds whole statements over {@link FuzzTables}: SELECT with WHERE, GROUP BY (also ROLLUP, CUBE
 * and GROUPING SETS), HAVING, ORDER BY, LIMIT and OFFSET; joins of every kind, UNNEST, derived
 * tables and VALUES; set operations; CTEs; EXPLAIN; and INSERT, UPDATE, DELETE and MERGE on the
 * scratch table. A statement's randomness comes only from the {@link Random} it is given, so the
 * same seed builds the same statement.
 */
final class StatementGenerator implements ExpressionGenerator.Subqueries {
  /** What a statement is, which decides how it is sent. */
  enum Kind { QUERY, UPDATE }

  /** A generated statement. */
  record Statement(String sql, Kind kind) {
    Statement {
      requireNonNull(sql, "sql is null");
      requireNonNull(kind, "kind is null");
    }
  }

  /** A FROM clause and the columns it brings into scope. */
  private record From(String sql, List<Scope.Column> columns) {}

  private final Random random;
  private final Literals literals;
  private final ExpressionGenerator expressions;
  private int aliases;

  StatementGenerator(Random random) {
    this.random = requireNonNull(random, "random is null");
    this.literals = new Literals(random);
    this.expressions = new ExpressionGenerator(random, literals, this);
  }

  /** A statement of any kind: mostly queries, some DML on the scratch table. */
  Statement statement() {
    aliases = 0;
    expressions.allowIllTyped(random.nextInt(10) == 0);
    int choice = random.nextInt(100);
    if (choice < 8) {
      return new Statement(dml(), Kind.UPDATE);
    }
    return new Statement(query(), Kind.QUERY);
  }

  /** A query: SELECT, VALUES, a set operation, WITH, or EXPLAIN of one. */
  String query() {
    int depth = 1 + random.nextInt(3);
    int choice = random.nextInt(100);
    if (choice < 12) {
      return "SELECT " + items(randomTypes(), Scope.EMPTY, depth);
    }
    if (choice < 17) {
      return values(randomTypes(), depth);
    }
    if (choice < 27) {
      List<FuzzType> types = randomTypes();
      return select(types, Scope.EMPTY, depth, true) + " " + pick(List.of("UNION", "UNION ALL", "INTERSECT", "EXCEPT", "INTERSECT ALL", "EXCEPT ALL"))
          + " " + select(types, Scope.EMPTY, depth, true) + (random.nextBoolean() ? " ORDER BY 1" : "");
    }
    if (choice < 33) {
      List<FuzzType> types = randomTypes();
      String cte = "w" + aliases++;
      List<Scope.Column> columns = new ArrayList<>();
      for (int i = 0; i < types.size(); i++) {
        columns.add(new Scope.Column("c" + i, types.get(i)));
      }
      String alias = "t" + aliases++;
      List<Scope.Column> qualified = columns.stream().map(c -> new Scope.Column(alias + "." + c.sql(), c.type())).toList();
      return "WITH " + cte + " AS (" + select(types, Scope.EMPTY, depth, true) + ") SELECT "
          + items(randomTypes(), Scope.rows(qualified), depth) + " FROM " + cte + " AS " + alias
          + (random.nextBoolean() ? " WHERE " + expressions.predicate(Scope.rows(qualified), depth) : "");
    }
    if (choice < 35) {
      return "EXPLAIN " + select(randomTypes(), Scope.EMPTY, depth, false);
    }
    return select(randomTypes(), Scope.EMPTY, depth, false);
  }

  @Override
  public String column(FuzzType type, Scope outer, int depth) {
    String select = select(List.of(type), outer, Math.max(0, depth - 1), true);
    return random.nextBoolean() ? select : select + " LIMIT 1";
  }

  @Override
  public String any(Scope outer, int depth) {
    return select(List.of(pick(FuzzType.SCALARS)), outer, Math.max(0, depth - 1), false);
  }

  /**
   * A SELECT of columns of {@code types} (named c0, c1, ...); {@code exact} casts each to its type,
   * so that set operations and inserts line up.
   */
  private String select(List<FuzzType> types, Scope outer, int depth, boolean exact) {
    From from = from(depth, outer.columns().isEmpty());
    Scope rows = outer.inner(from.columns());
    StringBuilder sql = new StringBuilder("SELECT ");
    boolean distinct = random.nextInt(10) == 0;
    if (distinct) {
      sql.append("DISTINCT ");
    }
    int shape = random.nextInt(100);
    String groupBy = "";
    String having = "";
    Scope itemScope;
    if (shape < 25) {
      List<Scope.Column> keys = new ArrayList<>();
      int count = 1 + random.nextInt(3);
      for (int i = 0; i < count; i++) {
        FuzzType type = pick(FuzzType.SCALARS);
        String key = random.nextInt(4) == 0 ? expressions.expression(type, rows, 1) : expressions.leaf(type, rows);
        keys.add(new Scope.Column(key, type));
      }
      List<String> keySql = keys.stream().map(Scope.Column::sql).toList();
      groupBy = " GROUP BY " + switch (random.nextInt(10)) {
        case 0 -> "ROLLUP(" + String.join(", ", keySql) + ")";
        case 1 -> "CUBE(" + String.join(", ", keySql) + ")";
        case 2 -> "GROUPING SETS ((" + String.join(", ", keySql) + "), ())";
        default -> String.join(", ", keySql);
      };
      itemScope = new Scope(keys, rows.columns(), !distinct);
      if (random.nextInt(3) == 0) {
        having = " HAVING " + expressions.predicate(new Scope(keys, rows.columns(), false), depth);
      }
    } else if (shape < 33) {
      itemScope = new Scope(List.of(), rows.columns(), !distinct);
    } else {
      itemScope = new Scope(rows.columns(), null, !distinct && outer.columns().isEmpty());
    }
    sql.append(exact ? castItems(types, itemScope, depth) : items(types, itemScope, depth));
    sql.append(" FROM ").append(from.sql());
    if (random.nextInt(10) < 6) {
      sql.append(" WHERE ").append(expressions.predicate(rows, depth));
    }
    sql.append(groupBy).append(having);
    if (random.nextInt(10) < 3) {
      sql.append(" ORDER BY ").append(1 + random.nextInt(types.size()))
          .append(pick(List.of("", " DESC", " NULLS FIRST", " DESC NULLS LAST", " ASC NULLS LAST")));
    }
    if (random.nextInt(10) < 3) {
      sql.append(" LIMIT ").append(pick(List.of("1", "5", "0", "100", "9223372036854775807", "2147483648")));
      if (random.nextInt(4) == 0) {
        sql.append(" OFFSET ").append(pick(List.of("1", "3", "0", "2147483647", "9223372036854775807")));
      }
    }
    return sql.toString();
  }

  private String items(List<FuzzType> types, Scope scope, int depth) {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      items.add(expressions.expression(types.get(i), scope, depth) + " AS c" + i);
    }
    return String.join(", ", items);
  }

  private String castItems(List<FuzzType> types, Scope scope, int depth) {
    List<String> items = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      items.add("CAST(" + expressions.expression(types.get(i), scope, depth) + " AS " + types.get(i).sql() + ") AS c" + i);
    }
    return String.join(", ", items);
  }

  /** A FROM clause; {@code topLevel} ones may also be joins. */
  private From from(int depth, boolean topLevel) {
    int choice = random.nextInt(100);
    if (topLevel && choice < 25) {
      String left = "t" + aliases++;
      String right = "t" + aliases++;
      FuzzTables.Table other = random.nextInt(3) == 0 ? FuzzTables.F : FuzzTables.G;
      List<Scope.Column> columns = new ArrayList<>(FuzzTables.F.as(left));
      columns.addAll(other.as(right));
      String join = pick(List.of("JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "CROSS JOIN", "LEFT OUTER JOIN"));
      String on = "";
      if (!join.equals("CROSS JOIN")) {
        String key = other == FuzzTables.G ? right + ".k" : right + ".i";
        on = random.nextInt(3) > 0
            ? " ON " + left + ".i = " + key + (random.nextBoolean() ? " AND " + expressions.predicate(Scope.rows(columns), 1) : "")
            : " ON " + expressions.predicate(Scope.rows(columns), depth);
      }
      return new From("fz.f AS " + left + " " + join + " " + other.name() + " AS " + right + on, columns);
    }
    if (topLevel && choice < 30) {
      String table = "t" + aliases++;
      String unnest = "u" + aliases++;
      List<Scope.Column> columns = new ArrayList<>(FuzzTables.F.as(table));
      columns.add(new Scope.Column(unnest + ".e", FuzzType.INTEGER));
      return new From("fz.f AS " + table + " CROSS JOIN UNNEST(" + table + ".ai) AS " + unnest + "(e)", columns);
    }
    if (choice < 38) {
      List<FuzzType> types = randomTypes();
      String alias = "q" + aliases++;
      return new From("(" + select(types, Scope.EMPTY, Math.max(0, depth - 1), true) + ") AS " + alias, named(alias, types));
    }
    if (choice < 43) {
      List<FuzzType> types = randomTypes();
      String alias = "v" + aliases++;
      List<String> names = new ArrayList<>();
      for (int i = 0; i < types.size(); i++) {
        names.add("c" + i);
      }
      return new From("(" + values(types, 0) + ") AS " + alias + "(" + String.join(", ", names) + ")", named(alias, types));
    }
    if (choice < 46) {
      String alias = "t" + aliases++;
      return new From(pick(List.of(
          "fz.f FOR VERSION AS OF 1", "fz.\"f$snapshots\"", "fz.\"f$files\"", "information_schema.columns",
          "fz.f FOR TIMESTAMP AS OF TIMESTAMP '2000-01-01 00:00:00'", "fz.nope", "fz.\"f$nope\"")) + " AS " + alias, List.of());
    }
    FuzzTables.Table table = choice < 80 ? FuzzTables.F : choice < 92 ? FuzzTables.G : FuzzTables.SCRATCH_TABLE;
    String alias = "t" + aliases++;
    return new From(table.name() + " AS " + alias, table.as(alias));
  }

  private static List<Scope.Column> named(String alias, List<FuzzType> types) {
    List<Scope.Column> columns = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      columns.add(new Scope.Column(alias + ".c" + i, types.get(i)));
    }
    return columns;
  }

  private String values(List<FuzzType> types, int depth) {
    int rows = 1 + random.nextInt(3);
    List<String> tuples = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      List<String> values = new ArrayList<>();
      for (FuzzType type : types) {
        values.add(r == 0 ? "CAST(" + expressions.expression(type, Scope.EMPTY, depth) + " AS " + type.sql() + ")"
            : expressions.expression(type, Scope.EMPTY, depth));
      }
      tuples.add("(" + String.join(", ", values) + ")");
    }
    return "VALUES " + String.join(", ", tuples);
  }

  private List<FuzzType> randomTypes() {
    int count = 1 + random.nextInt(random.nextInt(8) == 0 ? 6 : 3);
    List<FuzzType> types = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      types.add(pick(FuzzType.ALL));
    }
    return types;
  }

  // ------------------------------------------------------------------------------------------ DML

  private String dml() {
    int depth = 1 + random.nextInt(3);
    String alias = "t" + aliases++;
    Scope target = Scope.rows(FuzzTables.SCRATCH_TABLE.as(alias));
    return switch (random.nextInt(6)) {
      case 0 -> insertValues(depth);
      case 1 -> {
        List<String> columns = someColumns();
        List<FuzzType> types = columns.stream().map(FuzzTables.ALL_TYPES::get).toList();
        yield "INSERT INTO " + FuzzTables.SCRATCH + " (" + String.join(", ", columns) + ") " + select(types, Scope.EMPTY, depth, random.nextBoolean());
      }
      case 2 -> "UPDATE " + FuzzTables.SCRATCH + " AS " + alias + " SET " + assignments(target, depth)
          + (random.nextInt(4) > 0 ? " WHERE " + expressions.predicate(target, depth) : "");
      case 3 -> "DELETE FROM " + FuzzTables.SCRATCH + " AS " + alias
          + (random.nextInt(6) > 0 ? " WHERE " + expressions.predicate(target, depth) : "");
      default -> merge(alias, depth);
    };
  }

  private String insertValues(int depth) {
    boolean named = random.nextBoolean();
    List<String> columns = named ? someColumns() : new ArrayList<>(FuzzTables.ALL_TYPES.keySet());
    int rows = 1 + random.nextInt(3);
    List<String> tuples = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      List<String> values = new ArrayList<>();
      for (String column : columns) {
        values.add(expressions.expression(FuzzTables.ALL_TYPES.get(column), Scope.EMPTY, depth));
      }
      tuples.add("(" + String.join(", ", values) + ")");
    }
    return "INSERT INTO " + FuzzTables.SCRATCH + (named ? " (" + String.join(", ", columns) + ")" : "") + " VALUES "
        + String.join(", ", tuples);
  }

  private String merge(String alias, int depth) {
    String source = "s" + aliases++;
    List<Scope.Column> both = new ArrayList<>(FuzzTables.SCRATCH_TABLE.as(alias));
    both.addAll(FuzzTables.F.as(source));
    Scope matched = Scope.rows(both);
    Scope sourceOnly = Scope.rows(FuzzTables.F.as(source));
    Scope targetOnly = Scope.rows(FuzzTables.SCRATCH_TABLE.as(alias));
    StringBuilder sql = new StringBuilder("MERGE INTO " + FuzzTables.SCRATCH + " AS " + alias + " USING ")
        .append(random.nextBoolean() ? "fz.f" : "(SELECT * FROM fz.f WHERE i IS NOT NULL)").append(" AS ").append(source)
        .append(" ON ").append(random.nextInt(4) > 0 ? alias + ".i = " + source + ".i" : expressions.predicate(matched, 1));
    int clauses = 1 + random.nextInt(3);
    for (int c = 0; c < clauses; c++) {
      String condition = random.nextBoolean() ? " AND " + expressions.predicate(matched, 1) : "";
      switch (random.nextInt(4)) {
        case 0 -> sql.append(" WHEN MATCHED").append(condition).append(" THEN UPDATE SET ").append(assignments(matched, depth));
        case 1 -> sql.append(" WHEN MATCHED").append(condition).append(" THEN DELETE");
        case 2 -> {
          List<String> columns = someColumns();
          List<String> values = columns.stream().map(col -> expressions.expression(FuzzTables.ALL_TYPES.get(col), sourceOnly, depth)).toList();
          sql.append(" WHEN NOT MATCHED")
              .append(random.nextBoolean() ? " AND " + expressions.predicate(sourceOnly, 1) : "")
              .append(" THEN INSERT (").append(String.join(", ", columns)).append(") VALUES (").append(String.join(", ", values)).append(')');
        }
        default -> sql.append(" WHEN NOT MATCHED BY SOURCE")
            .append(random.nextBoolean() ? " AND " + expressions.predicate(targetOnly, 1) : "")
            .append(random.nextBoolean() ? " THEN DELETE" : " THEN UPDATE SET " + assignments(targetOnly, depth));
      }
    }
    return sql.toString();
  }

  private String assignments(Scope scope, int depth) {
    List<String> assignments = new ArrayList<>();
    for (String column : someColumns()) {
      assignments.add(column + " = " + expressions.expression(FuzzTables.ALL_TYPES.get(column), scope, depth));
    }
    return String.join(", ", assignments);
  }

  /** One to three distinct columns of the scratch table. */
  private List<String> someColumns() {
    List<String> names = new ArrayList<>(FuzzTables.ALL_TYPES.keySet());
    List<String> chosen = new ArrayList<>();
    int count = 1 + random.nextInt(3);
    for (int i = 0; i < count; i++) {
      chosen.add(names.remove(random.nextInt(names.size())));
    }
    return chosen;
  }

  // ------------------------------------------------------------------------------ session options

  /** A session statement for the session kept apart for them, with a valid or invalid value. */
  String sessionStatement() {
    Map<String, List<String>> options = Map.of(
        "time_zone", List.of("'UTC'", "'Europe/Paris'", "'+14:00'", "'-12:00'", "'America/St_Johns'", "'Asia/Kathmandu'",
            "'Mars/Olympus'", "''", "'+25:00'", "NULL", "42", "'\ud83d\ude00'"),
        "statement_timeout", List.of("'30s'", "'500ms'", "'1h'", "'PT30S'", "'0'", "'-1s'", "'abc'", "'99999999999999d'", "NULL",
            "'1ms'", "30", "TRUE"),
        "schema", List.of("'fz'", "'nope'", "''", "NULL", "'information_schema'", "'a\u0000b'", "fz"),
        "catalog", List.of("'iceberg'", "'nope'", "NULL", "''", "42"),
        "plan_cache", List.of("false", "'on'"),
        "nonsense", List.of("'x'", "1"));
    List<String> names = new ArrayList<>(options.keySet());
    names.sort(null);
    String name = pick(names);
    return switch (random.nextInt(8)) {
      case 0 -> "RESET " + name;
      case 1 -> "USE " + pick(List.of("fz", "iceberg.fz", "nope", "iceberg.nope", "\"\"", "a.b.c"));
      case 2 -> "SET SESSION " + name + " = " + pick(options.get(name));
      default -> "SET " + name + " = " + pick(options.get(name));
    };
  }

  /** A query to run after a session statement, which reads what session options change. */
  String sessionProbe() {
    return pick(List.of(
        "SELECT CURRENT_TIMESTAMP, CAST(TIMESTAMP '2024-03-31 02:30:00' AS TIMESTAMP WITH LOCAL TIME ZONE), CURRENT_SCHEMA",
        "SELECT count(*) FROM fz.f WHERE ts < CAST(tz AS TIMESTAMP)",
        "SELECT CAST('2024-01-01 10:00:00' AS timestamptz), LOCALTIMESTAMP",
        "SELECT count(*) FROM f",
        "SELECT 1"));
  }

  private <T> T pick(List<T> values) {
    return values.get(random.nextInt(values.size()));
  }
}
