package io.sqe.engine.plan.physical;

import io.sqe.engine.exec.batch.BatchPlan;
import io.sqe.engine.exec.batch.TopNBatches;
import io.sqe.engine.exec.expr.RowComparator;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.sql.type.SqlTypeName;

/** ORDER BY with a bounded OFFSET and FETCH over its input's batches ({@link TopNBatches}). */
public final class SqeTopN extends SingleRel implements SqeRel {
  /** The most rows (offset and fetch together) a top-N keeps: its memory stays bounded. */
  static final long MAX_ROWS = 100_000;

  private final RelCollation collation;
  private final long offset;
  private final long fetch;

  private SqeTopN(RelTraitSet traits, RelNode input, RelCollation collation, long offset, long fetch) {
    super(input.getCluster(), traits, input);
    this.collation = collation;
    this.offset = offset;
    this.fetch = fetch;
  }

  /** The top-N of {@code input}, or null when its keys or bounds are not ones this operator takes. */
  static SqeTopN of(RelTraitSet traits, SqeRel input, RelCollation collation, long offset, long fetch) {
    if (fetch < 0 || offset + fetch > MAX_ROWS || collation.getFieldCollations().isEmpty()) {
      return null;
    }
    for (RelFieldCollation key : collation.getFieldCollations()) {
      if (!orderable(input.getRowType().getFieldList().get(key.getFieldIndex()).getType().getSqlTypeName())) {
        return null;
      }
    }
    return new SqeTopN(traits.replace(collation), input, collation, offset, fetch);
  }

  private static boolean orderable(SqlTypeName type) {
    return switch (type) {
      case TINYINT, SMALLINT, INTEGER, BIGINT, DECIMAL, REAL, FLOAT, DOUBLE, DATE, TIME, TIMESTAMP,
          TIMESTAMP_WITH_LOCAL_TIME_ZONE, VARCHAR, CHAR, VARBINARY, BOOLEAN -> true;
      default -> false;
    };
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new SqeTopN(traitSet, sole(inputs), collation, offset, fetch);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).item("collation", collation).itemIf("offset", offset, offset > 0).item("fetch", fetch);
  }

  @Override
  public BatchPlan implement() {
    BatchPlan in = ((SqeRel) input).implement();
    List<RowComparator.Key> keys = new ArrayList<>();
    for (RelFieldCollation key : collation.getFieldCollations()) {
      // As Calcite's generated comparators: nulls first only when the collation says FIRST.
      keys.add(new RowComparator.Key(
          key.getFieldIndex(), key.getDirection().isDescending(), key.nullDirection == RelFieldCollation.NullDirection.FIRST));
    }
    RowComparator comparator = new RowComparator(keys);
    long skip = offset;
    long take = fetch;
    return (context, allocator) -> new TopNBatches(in.open(context, allocator), comparator, skip, take, context, allocator);
  }
}
