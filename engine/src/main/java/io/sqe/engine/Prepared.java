package io.sqe.engine;

import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.plan.PlannedQuery;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

/**
 * A statement ready to run: a compiled query, a result already known (EXPLAIN), or a command
 * (DDL, DML, session statements) that runs once and reports how many rows it changed.
 */
public sealed interface Prepared {
  String sql();

  /** The schema of the rows running the statement returns. */
  Schema resultSchema();

  /** The types of the statement's {@code ?} parameters, in order. */
  List<RelDataType> parameterTypes();

  /** A compiled query. */
  record Query(PlannedQuery plan) implements Prepared {
    @Override
    public String sql() {
      return plan.sql();
    }

    @Override
    public Schema resultSchema() {
      return plan.resultSchema();
    }

    @Override
    public List<RelDataType> parameterTypes() {
      return plan.parameterTypes();
    }
  }

  /**
   * A statement that is not a query; running it returns the rows it changed, or the rows of its
   * report (table maintenance).
   */
  record Command(String sql, PreparedCommand command) implements Prepared {
    /** What running a command returns: one row, the number of rows changed. */
    public static final Schema RESULT_SCHEMA =
        new Schema(List.of(new Field("rows", FieldType.notNullable(new ArrowType.Int(64, true)), List.of())));

    @Override
    public Schema resultSchema() {
      return command.reportSchema().orElse(RESULT_SCHEMA);
    }

    /** Whether running it returns rows of a report rather than a count. */
    public boolean reports() {
      return command.reportSchema().isPresent();
    }

    @Override
    public List<RelDataType> parameterTypes() {
      return command.parameterTypes();
    }
  }

  /** A result computed while preparing; its rows are Calcite run-time values. */
  record Rows(String sql, Schema resultSchema, List<Object[]> rows) implements Prepared {
    public Rows {
      rows = List.copyOf(rows);
    }

    @Override
    public List<RelDataType> parameterTypes() {
      return List.of();
    }
  }
}
