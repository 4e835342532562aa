package io.sqe.catalog.types;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.arrow.vector.types.pojo.Field;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.types.Types.NestedField;
import org.junit.jupiter.api.Test;

class CalciteTypeMappingTest {
  private final RelDataTypeFactory factory = new JavaTypeFactoryImpl();

  @Test
  void optionalStructKeepsItsRequiredFields() {
    Types.StructType point =
        Types.StructType.of(
            NestedField.required(2, "x", Types.IntegerType.get()),
            NestedField.optional(3, "label", Types.StringType.get()),
            NestedField.required(
                4, "inner", Types.StructType.of(NestedField.required(5, "y", Types.LongType.get()))));
    Schema schema = new Schema(NestedField.optional(1, "point", point));

    RelDataType type = CalciteTypeMapping.toCalcite(factory, schema).getFieldList().get(0).getType();

    assertThat(type.isNullable()).isTrue();
    assertThat(type.getField("x", true, false).getType().isNullable()).isFalse();
    assertThat(type.getField("label", true, false).getType().isNullable()).isTrue();
    RelDataType inner = type.getField("inner", true, false).getType();
    assertThat(inner.isNullable()).isFalse();
    assertThat(inner.getField("y", true, false).getType().isNullable()).isFalse();
  }

  @Test
  void arrowFieldOfAMappedStructEqualsTheDirectMapping() {
    Schema schema =
        new Schema(
            NestedField.optional(
                1,
                "s",
                Types.StructType.of(
                    NestedField.required(2, "a", Types.IntegerType.get()),
                    NestedField.optional(3, "tags", Types.ListType.ofRequired(4, Types.StringType.get())),
                    NestedField.required(
                        5, "m", Types.MapType.ofOptional(6, 7, Types.StringType.get(), Types.DoubleType.get())))));

    Field viaCalcite =
        CalciteTypeMapping.toArrow("s", CalciteTypeMapping.toCalcite(factory, schema).getFieldList().get(0).getType());

    assertThat(viaCalcite).isEqualTo(ArrowTypeMapping.toArrow(schema).getFields().get(0));
  }
}
