package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class QueryEngineTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "ts", Types.TimestampType.withoutZone()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
    for (int file = 0; file < 3; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        long id = file * 10L + i;
        Record r = GenericRecord.create(SCHEMA);
        r.setField("id", id);
        r.setField("name", id % 2 == 0 ? "even" : "odd");
        r.setField("price", BigDecimal.valueOf(id * 100 + 25, 2));
        r.setField("d", LocalDate.of(2024, 1, 1).plusDays(id));
        r.setField("ts", LocalDateTime.of(2024, 1, 1, 12, 0).plusMinutes(id));
        rows.add(r);
      }
      TestTables.appendFile(table, rows);
    }
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  private List<List<Object>> run(String sql, Object... params) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(params), "q1")) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var v : root.getFieldVectors()) {
            row.add(v.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  @Test
  void aggregatesAcrossFiles() {
    List<List<Object>> rows = run("select name, count(*), sum(price) from t group by name order by name");
    assertThat(rows).hasSize(2);
    assertThat(rows.get(0).get(0).toString()).isEqualTo("even");
    assertThat(rows.get(0).get(1)).isEqualTo(15L);
    // sum over even ids 0..28 of (id + 0.25)
    assertThat((BigDecimal) rows.get(0).get(2)).isEqualByComparingTo(new BigDecimal("213.75"));
  }

  @Test
  void selectiveFilterOpensOneFile() {
    Prepared prepared = engine.prepare(session, "select id, name from t where id = 12");
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "q2")) {
      int rows = 0;
      while (exec.next()) {
        rows += exec.root().getRowCount();
      }
      assertThat(rows).isEqualTo(1);
      assertThat(exec.context().stats().filesScanned()).isEqualTo(1);
    }
    Prepared all = engine.prepare(session, "select id from t where name = 'odd'");
    try (QueryExecution exec = engine.execute(session, all, List.of(), "q3")) {
      while (exec.next()) {
        assertThat(exec.root().getRowCount()).isEqualTo(15);
      }
      assertThat(exec.context().stats().filesScanned()).isEqualTo(3);
    }
  }

  @Test
  void limitStopsReadingAndProjectionNarrowsTheScan() {
    Prepared prepared = engine.prepare(session, "select name from t limit 3");
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "q4")) {
      int rows = 0;
      while (exec.next()) {
        rows += exec.root().getRowCount();
      }
      assertThat(rows).isEqualTo(3);
      assertThat(exec.context().stats().filesScanned()).isEqualTo(1);
    }
    List<List<Object>> plan = run("explain select name from t where id > 25 limit 3");
    assertThat(run("explain plan for select name from t where id > 25 limit 3")).isEqualTo(plan);
    String text = plan.stream().map(r -> r.get(0).toString()).reduce("", (a, b) -> a + b + "\n");
    assertThat(text).contains("TableScan").contains("columns=[[id, name]]").contains("filter=");
  }

  @Test
  void parametersBind() {
    List<List<Object>> rows = run("select count(*) from t where id < ? and d >= ?", 20, LocalDate.of(2024, 1, 6));
    assertThat(rows.get(0).get(0)).isEqualTo(15L);
  }

  @Test
  void syntaxErrorsCarryAPosition() {
    assertThatThrownBy(() -> engine.prepare(session, "select * frm t"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.position()).isPresent();
          assertThat(e.position().get().line()).isEqualTo(1);
        });
  }

  @Test
  void unknownTableIsNotFound() {
    assertThatThrownBy(() -> engine.prepare(session, "select * from nope"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
          assertThat(e.position()).isPresent();
        });
  }

  @Test
  void statementsWithoutAnExecutorSayWhichKind() {
    for (String[] statement : new String[][] {
        {"create table x (a int)", "CREATE TABLE statements"}, {"show tables", "SHOW statements"},
        // An engine without the write path has nothing to stage a transaction in.
        {"begin", "This server does not run transactions"}}) {
      assertThatThrownBy(() -> engine.prepare(session, statement[0]))
          .isInstanceOfSatisfying(SqeException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.NOT_SUPPORTED);
            assertThat(e.getMessage()).startsWith(statement[1]);
          });
    }
  }

  @Test
  void namesAreCaseInsensitive() {
    assertThat(run("SELECT COUNT(*) FROM LAKE.S.T WHERE ID > 25").get(0).get(0)).isEqualTo(4L);
  }
}
