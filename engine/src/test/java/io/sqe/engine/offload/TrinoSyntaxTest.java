package io.sqe.engine.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.plan.offload.TrinoSyntax;
import java.util.List;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * The Trino types an offloaded write casts its columns to: for each Iceberg type, the Trino type
 * that Trino's Iceberg connector maps to it (its documentation's type mapping), so a cast to it
 * writes exactly that column type; and the quoting of names and literals around the SELECT.
 */
class TrinoSyntaxTest {
  @Test
  void eachIcebergTypeIsTheTrinoTypeTheConnectorStoresAsIt() {
    assertThat(TrinoSyntax.type(Types.BooleanType.get())).isEqualTo("boolean");
    assertThat(TrinoSyntax.type(Types.IntegerType.get())).isEqualTo("integer");
    assertThat(TrinoSyntax.type(Types.LongType.get())).isEqualTo("bigint");
    assertThat(TrinoSyntax.type(Types.FloatType.get())).isEqualTo("real");
    assertThat(TrinoSyntax.type(Types.DoubleType.get())).isEqualTo("double");
    assertThat(TrinoSyntax.type(Types.DecimalType.of(12, 2))).isEqualTo("decimal(12, 2)");
    assertThat(TrinoSyntax.type(Types.DateType.get())).isEqualTo("date");
    // Trino's bare time and timestamp are milliseconds: a cast to them would drop microseconds.
    assertThat(TrinoSyntax.type(Types.TimeType.get())).isEqualTo("time(6)");
    assertThat(TrinoSyntax.type(Types.TimestampType.withoutZone())).isEqualTo("timestamp(6)");
    assertThat(TrinoSyntax.type(Types.TimestampType.withZone())).isEqualTo("timestamp(6) with time zone");
    assertThat(TrinoSyntax.type(Types.StringType.get())).isEqualTo("varchar");
    assertThat(TrinoSyntax.type(Types.UUIDType.get())).isEqualTo("uuid");
    assertThat(TrinoSyntax.type(Types.BinaryType.get())).isEqualTo("varbinary");
  }

  @Test
  void typesTrinoWouldWriteDifferentlyAreNotOffloaded() {
    for (Type type : List.<Type>of(
        Types.FixedType.ofLength(16),
        Types.ListType.ofOptional(1, Types.IntegerType.get()),
        Types.StructType.of(Types.NestedField.optional(2, "a", Types.IntegerType.get())))) {
      assertThatThrownBy(() -> TrinoSyntax.type(type))
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_SUPPORTED));
    }
  }

  @Test
  void namesAndLiteralsAreQuoted() {
    assertThat(TrinoSyntax.qualified(List.of("iceberg", "my \"s\"", "t"))).isEqualTo("\"iceberg\".\"my \"\"s\"\"\".\"t\"");
    assertThat(TrinoSyntax.literal("it's")).isEqualTo("'it''s'");
  }
}
