package io.sqe.engine.exec;

import io.sqe.engine.EngineConfig;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import java.util.function.Supplier;
import org.apache.calcite.linq4j.Enumerator;

/** Creates {@link QueryExecution}s and {@link RowStream}s; keeps their constructors out of the public API. */
public final class QueryExecutions {
  private QueryExecutions() {}

  public static QueryExecution start(
      BufferAllocator allocator, QueryContext context, Schema schema, Supplier<Enumerator<Object>> plan, EngineConfig config) {
    return new QueryExecution(
        allocator, context, schema, plan, new QueryExecution.BatchLimits(config.batchMaxRows(), config.batchMaxBytes()));
  }

  public static RowStream rows(Enumerator<Object> rows, QueryContext context, int columns) {
    return new RowStream(rows, context, columns);
  }
}
