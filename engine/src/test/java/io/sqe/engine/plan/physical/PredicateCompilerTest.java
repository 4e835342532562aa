package io.sqe.engine.plan.physical;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.expr.Predicate;
import io.sqe.engine.sql.SqeTypeSystem;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

/**
 * Comparisons of exact-number columns of mixed precision and scale (up to 38 digits, with
 * widening casts to a decimal as decorrelated sub-queries write them) run on the evaluator and
 * keep the rows {@code BigDecimal.compareTo}, the row runtime's comparison, keeps: values past 64
 * bits, equal values of different scales, NULLs.
 */
class PredicateCompilerTest {
  private static final List<SqlOperator> COMPARISONS = List.of(
      SqlStdOperatorTable.EQUALS,
      SqlStdOperatorTable.NOT_EQUALS,
      SqlStdOperatorTable.LESS_THAN,
      SqlStdOperatorTable.LESS_THAN_OR_EQUAL,
      SqlStdOperatorTable.GREATER_THAN,
      SqlStdOperatorTable.GREATER_THAN_OR_EQUAL);

  private final RelDataTypeFactory types = new JavaTypeFactoryImpl(SqeTypeSystem.INSTANCE);
  private final RexBuilder rex = new RexBuilder(types);

  /** Columns: amount DECIMAL(15, 2), rate DECIMAL(7, 3), i INTEGER, avg DECIMAL(38, 6), wide DECIMAL(38, 10). */
  private final RelDataType row = types.builder()
      .add("amount", nullable(types.createSqlType(SqlTypeName.DECIMAL, 15, 2)))
      .add("rate", nullable(types.createSqlType(SqlTypeName.DECIMAL, 7, 3)))
      .add("i", nullable(types.createSqlType(SqlTypeName.INTEGER)))
      .add("avg", nullable(types.createSqlType(SqlTypeName.DECIMAL, 38, 6)))
      .add("wide", nullable(types.createSqlType(SqlTypeName.DECIMAL, 38, 10)))
      .build();

  /** Rows of values, null for NULL: ties at different scales, signs, and values of 128 bits. */
  private static final String[][] ROWS = {
      {"1.50", "1.500", "1", "1.500000", "1.5000000000"},
      {"-0.01", "-0.010", "0", "-0.010000", "-0.0100000001"},
      {"12.34", "4.567", "12", "12.340001", "12.3399999999"},
      {"9999999999999.99", "9999.999", "2147483647", "99999999999999999999999999999999.999999", "9999999999999.9900000000"},
      {"-9999999999999.99", "-9999.999", "-2147483648", "-99999999999999999999999999999999.999999", "-9999999999999.9900000001"},
      {null, "0.000", null, "0.000000", null},
      {"0.00", null, "7", null, "7.0000000000"},
      {"5.00", "5.000", "5", "5.000000", "1234567890123456789012345678.0123456789"},
  };

  @Test
  void exactColumnsOfMixedScalesCompareByValue() {
    int[][] pairs = {{0, 1}, {1, 0}, {0, 3}, {2, 3}, {3, 4}, {4, 0}, {2, 4}, {1, 2}};
    try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot batch = batch(allocator)) {
      for (int[] pair : pairs) {
        for (SqlOperator op : COMPARISONS) {
          RexNode condition = rex.makeCall(op, column(pair[0]), column(pair[1]));
          assertKeepsWhatBigDecimalKeeps(condition, batch, pair[0], pair[1]);
        }
      }
    }
  }

  @Test
  void widenedCastsCompareAsTheirColumns() {
    // Q22's comparison after decorrelation: CAST(c_acctbal AS DECIMAL(38, 6)) > avg.
    RelDataType wider = types.createSqlType(SqlTypeName.DECIMAL, 38, 6);
    try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot batch = batch(allocator)) {
      for (SqlOperator op : COMPARISONS) {
        RexNode condition = rex.makeCall(op, rex.makeCast(nullable(wider), column(0)), column(3));
        assertKeepsWhatBigDecimalKeeps(condition, batch, 0, 3);
        RexNode integers = rex.makeCall(op, column(4), rex.makeCast(nullable(wider), column(2)));
        assertKeepsWhatBigDecimalKeeps(integers, batch, 4, 2);
      }
    }
  }

  @Test
  void aNarrowingCastIsLeftToRowwiseCode() {
    // CAST(wide AS DECIMAL(38, 2)) rounds: the row runtime's rounding decides, not a comparison by value.
    RelDataType narrower = nullable(types.createSqlType(SqlTypeName.DECIMAL, 38, 2));
    RexNode condition = rex.makeCall(SqlStdOperatorTable.GREATER_THAN, column(0), rex.makeCast(narrower, column(4)));
    assertThat(PredicateCompiler.compile(condition, row)).isNull();
  }

  private void assertKeepsWhatBigDecimalKeeps(RexNode condition, VectorSchemaRoot batch, int left, int right) {
    Predicate predicate = PredicateCompiler.compile(condition, row);
    assertThat(predicate).as("%s", condition).isNotNull();
    int[] selection = new int[ROWS.length];
    Arrays.setAll(selection, r -> r);
    int kept = predicate.filter(batch, selection, ROWS.length);
    List<Integer> expected = new ArrayList<>();
    for (int r = 0; r < ROWS.length; r++) {
      if (ROWS[r][left] != null && ROWS[r][right] != null && holds(condition.getKind(), new BigDecimal(ROWS[r][left]).compareTo(new BigDecimal(ROWS[r][right])))) {
        expected.add(r);
      }
    }
    assertThat(Arrays.stream(selection, 0, kept).boxed().toList()).as("%s", condition).isEqualTo(expected);
  }

  private static boolean holds(org.apache.calcite.sql.SqlKind kind, int order) {
    return switch (kind) {
      case EQUALS -> order == 0;
      case NOT_EQUALS -> order != 0;
      case LESS_THAN -> order < 0;
      case LESS_THAN_OR_EQUAL -> order <= 0;
      case GREATER_THAN -> order > 0;
      default -> order >= 0;
    };
  }

  private VectorSchemaRoot batch(BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>();
    for (int c = 0; c < row.getFieldCount(); c++) {
      RelDataType type = row.getFieldList().get(c).getType();
      FieldVector vector = type.getSqlTypeName() == SqlTypeName.INTEGER
          ? new IntVector(row.getFieldNames().get(c), allocator)
          : new DecimalVector(row.getFieldNames().get(c), allocator, type.getPrecision(), type.getScale());
      vector.allocateNew();
      for (int r = 0; r < ROWS.length; r++) {
        String value = ROWS[r][c];
        if (value == null) {
          vector.setNull(r);
        } else if (vector instanceof IntVector ints) {
          ints.setSafe(r, Integer.parseInt(value));
        } else {
          ((DecimalVector) vector).setSafe(r, new BigDecimal(value));
        }
      }
      vector.setValueCount(ROWS.length);
      vectors.add(vector);
    }
    VectorSchemaRoot batch = new VectorSchemaRoot(vectors);
    batch.setRowCount(ROWS.length);
    return batch;
  }

  private RexNode column(int index) {
    return rex.makeInputRef(row, index);
  }

  private RelDataType nullable(RelDataType type) {
    return types.createTypeWithNullability(type, true);
  }
}
