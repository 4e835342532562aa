package io.sqe.sample.tpch;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchColumnType;
import io.trino.tpch.TpchEntity;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Checks each table definition against the generator's own column accessors. */
class TpchTableDefinitionTest {
  static Stream<TpchTableDefinition<?>> tables() {
    return TpchTableDefinition.ALL.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tables")
  <E extends TpchEntity> void schemaFollowsTheGeneratorColumns(TpchTableDefinition<E> table) {
    List<TpchColumn<E>> columns = table.source().getColumns();
    List<Types.NestedField> fields = table.schema().columns();

    assertThat(fields)
        .extracting(Types.NestedField::name)
        .containsExactlyElementsOf(columns.stream().map(TpchColumn::getColumnName).toList());
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      assertThat(field.isRequired()).as(field.name()).isTrue();
      assertThat(field.type()).as(field.name()).isEqualTo(expectedType(columns.get(i).getType()));
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tables")
  <E extends TpchEntity> void recordsHoldTheGeneratedValuesExactly(TpchTableDefinition<E> table) {
    List<TpchColumn<E>> columns = table.source().getColumns();
    long rows = 0;
    for (E row : table.source().createGenerator(TpchTestData.SCALE, 1, 1)) {
      Record record = table.toRecord(row);
      for (int i = 0; i < columns.size(); i++) {
        TpchColumn<E> column = columns.get(i);
        Object value = record.get(i);
        switch (column.getType().getBase()) {
          case IDENTIFIER -> assertThat(value).isEqualTo(column.getIdentifier(row));
          case INTEGER -> assertThat(value).isEqualTo(column.getInteger(row));
          case DATE -> assertThat(value).isEqualTo(LocalDate.ofEpochDay(column.getDate(row)));
          case VARCHAR -> assertThat(value).isEqualTo(column.getString(row));
          case DOUBLE -> {
            // Double.toString gives the shortest decimal that reads back as the same double,
            // which for a value generated from cents is the cents value itself.
            BigDecimal expected = new BigDecimal(Double.toString(column.getDouble(row)));
            assertThat((BigDecimal) value)
                .as(column.getColumnName())
                .isEqualByComparingTo(expected);
            assertThat(((BigDecimal) value).scale()).isEqualTo(2);
          }
        }
      }
      rows++;
    }
    assertThat(rows).isPositive();
  }

  private static Type expectedType(TpchColumnType type) {
    return switch (type.getBase()) {
      case IDENTIFIER -> Types.LongType.get();
      case INTEGER -> Types.IntegerType.get();
      case DATE -> Types.DateType.get();
      case VARCHAR -> Types.StringType.get();
      case DOUBLE -> Types.DecimalType.of(15, 2);
    };
  }
}
