package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.expr.RowComparator;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;

/**
 * The columnar form of an ORDER BY with its OFFSET and FETCH: a top-N when the rows it keeps are
 * bounded ({@link SqeTopN#MAX_ROWS}), else a sort of the whole input that may spill ({@link
 * SqeSort}) under a limit for the OFFSET and FETCH.
 */
final class SortLowering {
  private SortLowering() {}

  /**
   * ORDER BY {@code collation} of {@code input}, then OFFSET and FETCH ({@code fetch} negative for
   * none); null when the keys are not ones the columnar operators order.
   */
  static SqeRel orderBy(RelTraitSet traits, SqeRel input, RelCollation collation, long offset, long fetch) {
    if (collation.getFieldCollations().isEmpty()) {
      return null;
    }
    if (fetch >= 0) {
      SqeTopN topN = SqeTopN.of(traits, input, collation, offset, fetch);
      if (topN != null) {
        return topN;
      }
    }
    SqeSort sort = SqeSort.of(traits, input, collation);
    if (sort == null || offset == 0 && fetch < 0) {
      return sort;
    }
    return new SqeLimit(sort.getTraitSet(), sort, offset, fetch);
  }

  /** Whether every key of {@code collation} is a column of a type the comparator orders. */
  static boolean orderable(RelNode input, RelCollation collation) {
    for (RelFieldCollation key : collation.getFieldCollations()) {
      switch (input.getRowType().getFieldList().get(key.getFieldIndex()).getType().getSqlTypeName()) {
        case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL, REAL, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP,
            TIMESTAMP_WITH_LOCAL_TIME_ZONE, VARCHAR, CHAR, VARBINARY, BOOLEAN -> {}
        default -> {
          return false;
        }
      }
    }
    return true;
  }

  /** The comparator of {@code collation}'s keys. */
  static RowComparator comparator(RelCollation collation) {
    List<RowComparator.Key> keys = new ArrayList<>();
    for (RelFieldCollation key : collation.getFieldCollations()) {
      // As Calcite's generated comparators: nulls first only when the collation says FIRST.
      keys.add(new RowComparator.Key(
          key.getFieldIndex(), key.getDirection().isDescending(), key.nullDirection == RelFieldCollation.NullDirection.FIRST));
    }
    return new RowComparator(keys);
  }
}
