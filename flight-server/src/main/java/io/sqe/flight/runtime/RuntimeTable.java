package io.sqe.flight.runtime;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.ProjectableFilterableTable;
import org.apache.calcite.schema.Schema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A table of {@code system.runtime} whose rows the server makes when it is read, already filtered
 * to what the reader may see. Conditions are left to the plan, which evaluates them on the rows.
 */
final class RuntimeTable extends AbstractTable implements ProjectableFilterableTable {
  /** Fractional second digits of the timestamp columns. */
  private static final int MICROSECONDS = 6;

  /** One column of the table. */
  record Column(String name, SqlTypeName type, boolean nullable) {
    static Column text(String name, boolean nullable) {
      return new Column(name, SqlTypeName.VARCHAR, nullable);
    }

    static Column number(String name, boolean nullable) {
      return new Column(name, SqlTypeName.BIGINT, nullable);
    }

    static Column time(String name, boolean nullable) {
      return new Column(name, SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, nullable);
    }
  }

  private final List<Column> columns;
  private final Supplier<List<Object[]>> rows;

  RuntimeTable(List<Column> columns, Supplier<List<Object[]>> rows) {
    this.columns = List.copyOf(columns);
    this.rows = rows;
  }

  @Override
  public RelDataType getRowType(RelDataTypeFactory typeFactory) {
    RelDataTypeFactory.Builder row = typeFactory.builder();
    for (Column column : columns) {
      RelDataType type = column.type() == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
          ? typeFactory.createSqlType(column.type(), MICROSECONDS)
          : typeFactory.createSqlType(column.type());
      row.add(column.name(), typeFactory.createTypeWithNullability(type, column.nullable()));
    }
    return row.build();
  }

  @Override
  public Schema.TableType getJdbcTableType() {
    return Schema.TableType.SYSTEM_TABLE;
  }

  @Override
  public Enumerable<Object[]> scan(DataContext root, List<RexNode> filters, int[] projects) {
    List<Object[]> all = rows.get();
    if (projects == null) {
      return Linq4j.asEnumerable(all);
    }
    List<Object[]> projected = new ArrayList<>(all.size());
    for (Object[] row : all) {
      Object[] values = new Object[projects.length];
      for (int i = 0; i < projects.length; i++) {
        values[i] = row[projects[i]];
      }
      projected.add(values);
    }
    return Linq4j.asEnumerable(projected);
  }

  /** An instant as the engine's timestamp value: microseconds since the epoch. */
  static Long micros(Instant instant) {
    return instant == null ? null : instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
  }
}
