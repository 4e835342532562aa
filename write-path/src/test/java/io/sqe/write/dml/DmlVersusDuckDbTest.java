package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random sequences of INSERT, UPDATE, DELETE and MERGE on a partitioned multi-file table with
 * NULLs and duplicate keys, run by SQE and by DuckDB (in process) on the same starting rows; after
 * every statement both tables must hold the same rows and the statements must report the same
 * counts. The seed is printed; set {@code -Dsqe.dml.seed=...} to replay one.
 */
class DmlVersusDuckDbTest {
  private static final Schema TARGET =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "grp", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "n", Types.IntegerType.get()));
  private static final Schema SOURCE =
      new Schema(
          Types.NestedField.optional(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "amount", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(3, "op", Types.StringType.get()));
  private static final int STATEMENTS = 36;

  @TempDir Path dir;
  private Lakehouse lake;
  private Connection duck;
  private Random random;

  @BeforeEach
  void setUp() throws SQLException {
    long seed = Long.getLong("sqe.dml.seed", System.nanoTime());
    System.out.println("DmlVersusDuckDbTest seed: " + seed + " (replay with -Dsqe.dml.seed=" + seed + ")");
    random = new Random(seed);
    lake = new Lakehouse(dir);
    duck = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = duck.createStatement()) {
      s.execute("create table t (id bigint, grp varchar, amount decimal(10, 2), d date, n integer)");
      s.execute("create table u (id bigint, amount decimal(10, 2), op varchar)");
    }
    List<Record> targets = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      Record r = GenericRecord.create(TARGET);
      r.setField("id", random.nextInt(20) == 0 ? null : (long) random.nextInt(300));
      r.setField("grp", random.nextInt(15) == 0 ? null : "g" + random.nextInt(4));
      r.setField("amount", random.nextInt(10) == 0 ? null : BigDecimal.valueOf(random.nextInt(100_000) - 20_000, 2));
      r.setField("d", LocalDate.of(2024, 1, 1).plusDays(random.nextInt(400)));
      r.setField("n", random.nextInt(5) == 0 ? null : random.nextInt(50));
      targets.add(r);
    }
    lake.create("t", TARGET, PartitionSpec.builderFor(TARGET).identity("grp").build(), targets, 25);
    insertIntoDuckDb("t", targets, TARGET);
    List<Record> sources = new ArrayList<>();
    for (long id = 0; id < 320; id += 1 + random.nextInt(4)) {
      Record r = GenericRecord.create(SOURCE);
      r.setField("id", id);
      r.setField("amount", BigDecimal.valueOf(random.nextInt(50_000), 2));
      r.setField("op", List.of("u", "d", "i", "x").get(random.nextInt(4)));
      sources.add(r);
    }
    Record nullKey = GenericRecord.create(SOURCE);
    nullKey.setField("amount", BigDecimal.ONE.setScale(2));
    nullKey.setField("op", "i");
    sources.add(nullKey);
    lake.create("u", SOURCE, PartitionSpec.unpartitioned(), sources, 1000);
    insertIntoDuckDb("u", sources, SOURCE);
  }

  @AfterEach
  void tearDown() throws Exception {
    duck.close();
    lake.close();
  }

  @Test
  void randomStatementsAgreeWithDuckDb() throws SQLException {
    List<Function<Random, String>> templates = templates();
    for (int i = 0; i < STATEMENTS; i++) {
      String sql = templates.get(random.nextInt(templates.size())).apply(random);
      long ours = lake.update(sql);
      long theirs;
      try (Statement s = duck.createStatement()) {
        theirs = s.executeUpdate(sql);
      }
      assertThat(ours).as("row count of %s", sql).isEqualTo(theirs);
      assertThat(sqeRows()).as("table after %s", sql).containsExactlyElementsOf(duckRows());
    }
  }

  private static List<Function<Random, String>> templates() {
    return List.of(
        r -> "insert into t values (" + r.nextInt(400) + ", 'g" + r.nextInt(5) + "', " + (r.nextInt(9000) / 100.0)
            + ", date '2024-03-0" + (1 + r.nextInt(9)) + "', " + r.nextInt(9) + "), (null, null, null, null, null)",
        r -> "insert into t (id, grp, amount) select id + " + (1000 + r.nextInt(1000)) + ", 'g" + r.nextInt(4)
            + "', amount from u where op = '" + op(r) + "'",
        r -> "update t set amount = amount + " + r.nextInt(500) + ".25, n = coalesce(n, 0) + 1 where grp = 'g" + r.nextInt(4)
            + "' and mod(id, " + (2 + r.nextInt(5)) + ") = 1",
        r -> "update t set amount = (select max(u.amount) from u where u.id = t.id) where id in (select id from u where op = '"
            + op(r) + "')",
        r -> "update t set grp = 'g" + r.nextInt(4) + "', d = d + interval '1' day where mod(id, 7) = " + r.nextInt(7),
        r -> "delete from t where amount < " + (r.nextInt(400) - 200),
        r -> "delete from t where exists (select 1 from u where u.id = t.id and u.op = '" + op(r) + "')",
        r -> "delete from t where id is null or grp is null",
        r -> "merge into t using u as s on t.id = s.id"
            + " when matched and s.op = 'd' then delete"
            + " when matched and s.op = 'u' then update set amount = s.amount, n = -1"
            + " when not matched and s.op <> 'x' then insert (id, grp, amount) values (s.id, 'new', s.amount)",
        r -> "merge into t using (select id, amount * 2 as amount, op from u where op <> '" + op(r) + "') s on t.id = s.id"
            + " when matched then update set amount = t.amount + s.amount"
            + " when not matched by source and t.grp = 'g" + r.nextInt(4) + "' then update set n = 0"
            + " when not matched by source and t.amount > " + r.nextInt(300) + " then delete",
        r -> "merge into t as x using u on x.id = u.id and u.op = '" + op(r) + "'"
            + " when not matched by source and x.n is null then delete"
            + " when not matched then insert values (u.id, 'm', u.amount, date '2025-01-01', 7)");
  }

  private static String op(Random random) {
    return List.of("u", "d", "i", "x").get(random.nextInt(4));
  }

  private List<String> sqeRows() {
    List<String> rows = new ArrayList<>();
    for (Record r : Lakehouse.records(lake.table("t"))) {
      rows.add(row(r.getField("id"), r.getField("grp"), r.getField("amount"), r.getField("d"), r.getField("n")));
    }
    rows.sort(null);
    return rows;
  }

  private List<String> duckRows() throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement s = duck.createStatement(); ResultSet rs = s.executeQuery("select id, grp, amount, d, n from t")) {
      while (rs.next()) {
        rows.add(row(rs.getObject(1), rs.getObject(2), rs.getObject(3), rs.getObject(4) == null ? null : rs.getDate(4).toLocalDate(), rs.getObject(5)));
      }
    }
    rows.sort(null);
    return rows;
  }

  private static String row(Object... values) {
    List<String> parts = new ArrayList<>();
    for (Object v : values) {
      parts.add(v instanceof BigDecimal ? ((BigDecimal) v).setScale(2).toPlainString() : String.valueOf(v));
    }
    return String.join("|", parts);
  }

  private void insertIntoDuckDb(String table, List<Record> rows, Schema schema) throws SQLException {
    StringBuilder sql = new StringBuilder("insert into " + table + " values ");
    for (int i = 0; i < rows.size(); i++) {
      sql.append(i == 0 ? "(" : ", (");
      for (int c = 0; c < schema.columns().size(); c++) {
        Object v = rows.get(i).get(c);
        sql.append(c == 0 ? "" : ", ");
        if (v == null) {
          sql.append("null");
        } else if (v instanceof String || v instanceof LocalDate) {
          sql.append(v instanceof LocalDate ? "date " : "").append('\'').append(v).append('\'');
        } else {
          sql.append(v);
        }
      }
      sql.append(')');
    }
    try (Statement s = duck.createStatement()) {
      s.execute(sql.toString());
    }
  }
}
