package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.sql.ddl.SqlSortField;
import io.sqe.engine.sql.ddl.SqlTransform;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;

/** A table's partition spec and sort order from PARTITIONED BY and SORTED BY. */
final class TableLayouts {
  private TableLayouts() {}

  static PartitionSpec partitionSpec(Schema schema, SqlNodeList partitionBy) {
    if (partitionBy.isEmpty()) {
      return PartitionSpec.unpartitioned();
    }
    PartitionSpec.Builder builder = PartitionSpec.builderFor(schema);
    for (SqlNode node : partitionBy) {
      SqlTransform transform = (SqlTransform) node;
      String column = column(schema, transform, "partition");
      try {
        // Alone first: Iceberg checks source types only in build(), which cannot say which term failed.
        addPartitionField(PartitionSpec.builderFor(schema), transform, column).build();
        addPartitionField(builder, transform, column);
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Invalid partitioning " + describe(transform) + ": " + e.getMessage(), transform);
      }
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Invalid partitioning: " + e.getMessage(), partitionBy);
    }
  }

  private static PartitionSpec.Builder addPartitionField(PartitionSpec.Builder builder, SqlTransform transform, String column) {
    switch (transform.kind()) {
      case IDENTITY:
        return builder.identity(column);
      case YEAR:
        return builder.year(column);
      case MONTH:
        return builder.month(column);
      case DAY:
        return builder.day(column);
      case HOUR:
        return builder.hour(column);
      case BUCKET:
        return builder.bucket(column, transform.argument());
      case TRUNCATE:
        return builder.truncate(column, transform.argument());
      default:
        throw new IllegalStateException("Unknown transform " + transform.kind());
    }
  }

  static SortOrder sortOrder(Schema schema, SqlNodeList sortedBy) {
    if (sortedBy.isEmpty()) {
      return SortOrder.unsorted();
    }
    SortOrder.Builder builder = SortOrder.builderFor(schema);
    for (SqlNode node : sortedBy) {
      SqlSortField field = (SqlSortField) node;
      SqlTransform transform = field.term();
      Term term = term(transform, column(schema, transform, "sort"));
      NullOrder nulls;
      switch (field.nullOrder()) {
        case FIRST:
          nulls = NullOrder.NULLS_FIRST;
          break;
        case LAST:
          nulls = NullOrder.NULLS_LAST;
          break;
        default:
          nulls = field.descending() ? NullOrder.NULLS_LAST : NullOrder.NULLS_FIRST;
          break;
      }
      try {
        addSortField(SortOrder.builderFor(schema), term, field.descending(), nulls).build();
        addSortField(builder, term, field.descending(), nulls);
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Invalid sort order " + describe(transform) + ": " + e.getMessage(), transform);
      }
    }
    try {
      return builder.build();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Invalid sort order: " + e.getMessage(), sortedBy);
    }
  }

  private static SortOrder.Builder addSortField(SortOrder.Builder builder, Term term, boolean descending, NullOrder nulls) {
    return descending ? builder.desc(term, nulls) : builder.asc(term, nulls);
  }

  private static Term term(SqlTransform transform, String column) {
    switch (transform.kind()) {
      case IDENTITY:
        return Expressions.ref(column);
      case YEAR:
        return Expressions.year(column);
      case MONTH:
        return Expressions.month(column);
      case DAY:
        return Expressions.day(column);
      case HOUR:
        return Expressions.hour(column);
      case BUCKET:
        return Expressions.bucket(column, transform.argument());
      case TRUNCATE:
        return Expressions.truncate(column, transform.argument());
      default:
        throw new IllegalStateException("Unknown transform " + transform.kind());
    }
  }

  /** A transform as SQE writes it: {@code ts}, {@code day(ts)}, {@code bucket(16, id)}. */
  static String describe(SqlTransform transform) {
    String column = Columns.display(transform.column());
    switch (transform.kind()) {
      case IDENTITY:
        return column;
      case BUCKET:
      case TRUNCATE:
        return transform.kind().name().toLowerCase(java.util.Locale.ROOT) + "(" + transform.argument() + ", " + column + ")";
      default:
        return transform.kind().name().toLowerCase(java.util.Locale.ROOT) + "(" + column + ")";
    }
  }

  private static String column(Schema schema, SqlTransform transform, String clause) {
    return Columns.find(schema, transform.column())
        .orElseThrow(() -> error(
            ErrorCode.INVALID_ARGUMENT,
            "Column '" + Columns.display(transform.column()) + "' of the " + clause + " does not exist",
            transform.column()));
  }
}
