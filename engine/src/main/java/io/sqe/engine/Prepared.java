package io.sqe.engine;

import io.sqe.engine.plan.PlannedQuery;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

/** A statement ready to run: a compiled query, or a result already known (EXPLAIN). */
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
