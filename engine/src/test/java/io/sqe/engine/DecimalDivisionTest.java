package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Decimal division is exact: the quotient rounded half up at the result type's scale, as Trino
 * computes it, whether the planner folds it, the row runtime computes it or the columnar plan does
 * (there a row at a time). The reference is {@link BigDecimal#divide(BigDecimal, int,
 * RoundingMode)} over the same values; Calcite's own division kept 16 significant digits.
 */
class DecimalDivisionTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.IntegerType.get()),
          Types.NestedField.optional(2, "a", Types.DecimalType.of(38, 2)),
          Types.NestedField.optional(3, "b", Types.DecimalType.of(15, 3)),
          Types.NestedField.optional(4, "n", Types.LongType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;
  private final List<Record> records = new ArrayList<>();

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "d"), SCHEMA);
    Random random = new Random(42);
    for (int i = 0; i < 500; i++) {
      Record row = GenericRecord.create(SCHEMA);
      row.setField("id", i);
      // Dividends of up to 36 digits, divisors never zero, a NULL in each column now and then.
      row.setField("a", i % 17 == 0 ? null : new BigDecimal(new java.math.BigInteger(110, random), 2).multiply(BigDecimal.valueOf(i % 2 == 0 ? 1 : -1)));
      row.setField("b", i % 19 == 0 ? null : BigDecimal.valueOf(1 + random.nextInt(999_999), 3));
      row.setField("n", i % 23 == 0 ? null : (long) (1 + random.nextInt(1000)) * (i % 3 == 0 ? -1 : 1));
      records.add(row);
    }
    TestTables.appendFile(table, records);
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  @Test
  void aFoldedQuotientIsExact() {
    List<List<Object>> rows = TestQueries.rows(engine, session, "select cast(12301.04 as decimal(15, 2)) / 3, cast(12345678901234567890123.45 as decimal(38, 2)) / 7");
    BigDecimal first = (BigDecimal) rows.get(0).get(0);
    BigDecimal second = (BigDecimal) rows.get(0).get(1);
    assertThat(first).isEqualTo(new BigDecimal("12301.04").divide(BigDecimal.valueOf(3), first.scale(), RoundingMode.HALF_UP));
    assertThat(first.toPlainString()).endsWith("66667");
    assertThat(second).isEqualTo(new BigDecimal("12345678901234567890123.45").divide(BigDecimal.valueOf(7), second.scale(), RoundingMode.HALF_UP));
  }

  @Test
  void quotientsOfColumnsAreExactOnBothRuntimes() {
    String sql = "select id, a / b, a / n, n / b from s.d";
    for (boolean columnar : new boolean[] {true, false}) {
      Session options = TestOptions.set(session, PlannerOptions.COLUMNAR, columnar);
      List<List<Object>> rows = TestQueries.rows(engine, options, sql);
      assertThat(rows).hasSize(records.size());
      for (List<Object> row : rows) {
        Record record = records.get((Integer) row.get(0));
        BigDecimal a = (BigDecimal) record.getField("a");
        BigDecimal b = (BigDecimal) record.getField("b");
        Long n = (Long) record.getField("n");
        assertThat(row.get(1)).as("a / b, row %s, columnar %s", row.get(0), columnar).isEqualTo(exact(a, b, row.get(1)));
        assertThat(row.get(2)).as("a / n, row %s", row.get(0)).isEqualTo(exact(a, n == null ? null : BigDecimal.valueOf(n), row.get(2)));
        assertThat(row.get(3)).as("n / b, row %s", row.get(0)).isEqualTo(exact(n == null ? null : BigDecimal.valueOf(n), b, row.get(3)));
      }
    }
  }

  @Test
  void aZeroDivisorIsDivisionByZero() {
    assertThatThrownBy(() -> TestQueries.rows(engine, session, "select a / (b - b) from s.d where b is not null and a is not null"))
        .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT))
        .hasMessageContaining("Division by zero");
  }

  /** The exact quotient at the scale of {@code actual} (the result type's), or null for a NULL operand. */
  private static BigDecimal exact(BigDecimal dividend, BigDecimal divisor, Object actual) {
    if (dividend == null || divisor == null) {
      return null;
    }
    return dividend.divide(divisor, ((BigDecimal) actual).scale(), RoundingMode.HALF_UP);
  }
}
