package io.sqe.write.dml;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TEXT and STRING name VARCHAR in column declarations and in CAST. */
class TypeAliasTest {
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
