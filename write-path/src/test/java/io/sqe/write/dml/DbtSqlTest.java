package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SQL that dbt adapters and dbt projects write: the column list of CREATE TABLE ... AS with NOT NULL
 * and COMMENT (contracts and docs), TEXT and STRING as types.
 */
class DbtSqlTest {
  @TempDir Path dir;
  private Lakehouse lake;

  @BeforeEach
  void setUp() {
    lake = new Lakehouse(dir);
  }

  @AfterEach
  void tearDown() throws Exception {
    lake.close();
  }

  @Test
  void columnListDeclaresNotNullAndComments() {
    lake.update("create table t (k not null comment 'the key', label comment 'what it says', v) comment 'numbers'"
        + " as select x, 'row ' || cast(x as varchar), x * 2 from (values (1), (2), (3)) as n(x)");
    Table table = lake.table("t");
    Types.NestedField k = table.schema().findField("k");
    assertThat(k.isRequired()).isTrue();
    assertThat(k.doc()).isEqualTo("the key");
    assertThat(table.schema().findField("label").isOptional()).isTrue();
    assertThat(table.schema().findField("label").doc()).isEqualTo("what it says");
    assertThat(table.schema().findField("v").doc()).isNull();
    assertThat(table.properties()).containsEntry("comment", "numbers");
    assertThat(lake.query("select k, label, v from t order by k"))
        .isEqualTo(lake.query("select x, 'row ' || cast(x as varchar), x * 2 from (values (1), (2), (3)) as n(x) order by x"));
  }

  @Test
  void nullInNotNullColumnLeavesReplacedTableAsItWas() {
    lake.update("create table t (k not null) as select 1 from (values (0)) as n(x)");
    long snapshot = lake.table("t").currentSnapshot().snapshotId();
    assertThatThrownBy(() -> lake.update(
            "create or replace table t (k not null) as select case when x = 2 then null else x end from (values (1), (2)) as n(x)"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("NOT NULL column k");
    assertThat(lake.table("t").currentSnapshot().snapshotId()).isEqualTo(snapshot);
    assertThat(lake.query("select k from t")).containsExactly(List.of(1));
  }

  @Test
  void textAndStringAreVarchar() {
    lake.update("create table t (a text, b string not null, c row(d text), e array(string))");
    Types.StructType schema = lake.table("t").schema().asStruct();
    assertThat(schema.field("a").type()).isEqualTo(Types.StringType.get());
    assertThat(schema.field("b").type()).isEqualTo(Types.StringType.get());
    assertThat(schema.field("c").type().asStructType().field("d").type()).isEqualTo(Types.StringType.get());
    assertThat(schema.field("e").type().asListType().elementType()).isEqualTo(Types.StringType.get());
    lake.update("insert into t (a, b) values (cast(42 as text), cast(1.5 as string))");
    assertThat(lake.query("select a, b, cast(a as TEXT) || 'x' from t"))
        .isEqualTo(lake.query("select cast(42 as varchar), cast(1.5 as varchar), cast(42 as varchar) || 'x'"));
  }
}
