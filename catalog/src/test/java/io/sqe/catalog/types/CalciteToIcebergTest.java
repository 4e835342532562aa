package io.sqe.catalog.types;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Every Iceberg type survives Iceberg → Calcite → Iceberg. */
class CalciteToIcebergTest {
  private static final RelDataTypeFactory FACTORY =
      new JavaTypeFactoryImpl(
          new RelDataTypeSystemImpl() {
            @Override
            public int getMaxPrecision(SqlTypeName typeName) {
              switch (typeName) {
                case DECIMAL:
                  return 38;
                case TIMESTAMP:
                case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                  return 6;
                default:
                  return super.getMaxPrecision(typeName);
              }
            }
          });

  @Test
  void everyIcebergTypeRoundTrips() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "b", Types.BooleanType.get()),
            Types.NestedField.optional(2, "i", Types.IntegerType.get()),
            Types.NestedField.optional(3, "l", Types.LongType.get()),
            Types.NestedField.optional(4, "f", Types.FloatType.get()),
            Types.NestedField.optional(5, "d", Types.DoubleType.get()),
            Types.NestedField.optional(6, "dec", Types.DecimalType.of(38, 10)),
            Types.NestedField.optional(7, "dt", Types.DateType.get()),
            Types.NestedField.optional(8, "t", Types.TimeType.get()),
            Types.NestedField.optional(9, "ts", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(10, "tz", Types.TimestampType.withZone()),
            Types.NestedField.optional(11, "s", Types.StringType.get()),
            Types.NestedField.optional(12, "u", Types.UUIDType.get()),
            Types.NestedField.optional(13, "fx", Types.FixedType.ofLength(7)),
            Types.NestedField.optional(14, "bin", Types.BinaryType.get()),
            Types.NestedField.optional(15, "st", Types.StructType.of(
                Types.NestedField.required(16, "x", Types.IntegerType.get()),
                Types.NestedField.optional(17, "y", Types.StringType.get()))),
            Types.NestedField.required(18, "li", Types.ListType.ofOptional(19, Types.LongType.get())),
            Types.NestedField.optional(20, "m", Types.MapType.ofRequired(21, 22, Types.StringType.get(), Types.DoubleType.get())));
    Schema back = CalciteTypeMapping.toIcebergSchema(CalciteTypeMapping.toCalcite(FACTORY, schema));
    assertThat(back.asStruct()).isEqualTo(schema.asStruct());
  }

  @Test
  void typesIcebergCannotStoreAreRefused() {
    assertThatThrownBy(() -> CalciteTypeMapping.toIcebergType(FACTORY.createSqlType(SqlTypeName.SYMBOL)))
        .isInstanceOf(UnsupportedTypeException.class)
        .hasMessageContaining("cannot be stored");
  }
}
