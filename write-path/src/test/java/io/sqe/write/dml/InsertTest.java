package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InsertTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "name", Types.StringType.get()),
          Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)),
          Types.NestedField.optional(4, "d", Types.DateType.get()),
          Types.NestedField.optional(5, "n", Types.IntegerType.get()));

  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
    lake.catalog.iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
  }

  @AfterEach
  void tearDown() throws Exception {
    lake.close();
  }

  @Test
  void insertsValuesAndQueries() {
    assertThat(lake.update("insert into t values (1, 'a', 1.5, date '2024-01-02', 7), (2, null, 2, '2024-02-03', null)")).isEqualTo(2);
    assertThat(lake.update("insert into t (name, id) select name || 'x', id + 10 from t")).isEqualTo(2);
    Table table = lake.table("t");
    List<Record> rows = Lakehouse.records(table);
    assertThat(rows).hasSize(4);
    assertThat(rows).extracting(r -> r.getField("id")).containsExactlyInAnyOrder(1L, 2L, 11L, 12L);
    Record first = rows.stream().filter(r -> r.getField("id").equals(1L)).findFirst().orElseThrow();
    assertThat(first.getField("price")).isEqualTo(new BigDecimal("1.50"));
    assertThat(first.getField("d")).isEqualTo(LocalDate.of(2024, 1, 2));
    assertThat(lake.query("select count(*), sum(id) from t")).containsExactly(List.of(4L, 26L));
    assertThat(table.currentSnapshot().summary()).containsKey("sqe.query-id");
    try (ReferenceDuckDb duck = new ReferenceDuckDb()) {
      assertThat(duck.parquetRows(table)).isEqualTo(ReferenceDuckDb.icebergRows(table));
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void anIncrementalInsertPreparedOnceRunsAgainAndAgain() {
    // Its query compares with a scalar sub-query of the target: validated at prepare, planned at
    // the first run that may have rows, and that plan kept for the runs after.
    lake.update("create table src (id bigint, name varchar)");
    lake.update("create table dst (id bigint, name varchar)");
    lake.update("insert into src values (1, 'a'), (2, 'b'), (3, 'c')");
    String insert = "insert into dst select id, name from src where id > (select coalesce(max(id), 0) from dst)";
    assertThat(lake.query("explain " + insert)).first().asString().startsWith("[Insert into lake.s.dst (id, name)");
    Prepared.Command prepared = (Prepared.Command) lake.engine.prepare(lake.session, insert);
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "i1").rowCount()).isEqualTo(3);
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "i2").rowCount()).isZero();
    lake.update("insert into src values (4, 'd'), (0, 'z')");
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "i3").rowCount()).isEqualTo(1);
    assertThat(lake.engine.run(lake.session, prepared, List.of(), "i4").rowCount()).isZero();
    assertThat(lake.query("select id, name from dst order by id")).extracting(Object::toString)
        .containsExactly("[1, a]", "[2, b]", "[3, c]", "[4, d]");
  }

  @Test
  void rejectsValuesThatDoNotFit() {
    assertThatThrownBy(() -> lake.update("insert into t (id, n) values (1, 3000000000)"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT));
    assertThatThrownBy(() -> lake.update("insert into t (name) values ('x')"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).contains("NOT NULL"));
    assertThatThrownBy(() -> lake.update("insert into t (id) values (null)"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.getMessage()).contains("NOT NULL"));
    assertThat(lake.table("t").currentSnapshot()).isNull();
  }

  @Test
  void valuesWithNullNestedValues() {
    lake.update("create table n (id int, l array(int), m map(varchar, int))");
    // A NULL array among arrays with and without NULL elements once made the column's type an
    // array of NOT NULL elements, and the insert failed.
    assertThat(lake.update("insert into n values (1, array[1], map['a', 1]), (2, array[2, 2], map['b', 2]), (3, null, null),"
        + " (4, array[cast(null as int)], map['e', 5]), (5, array[7, 8, 9], map['f', cast(null as int)])")).isEqualTo(5);
    assertThat(ReferenceDuckDb.icebergRows(lake.table("n"))).containsExactly(
        "1 | [1] | map{'a': 1}",
        "2 | [2, 2] | map{'b': 2}",
        "3 | null | null",
        "4 | [null] | map{'e': 5}",
        "5 | [7, 8, 9] | map{'f': null}");
  }

  @Test
  void parameters() {
    assertThat(lake.update("insert into t (id, name, price) values (?, ?, ?)", 5L, "p", new BigDecimal("3.25"))).isEqualTo(1);
    assertThat(lake.query("select id, name, price from t")).hasSize(1);
  }
}
