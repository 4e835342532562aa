package io.sqe.engine.exec;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import java.util.List;
import java.util.function.Supplier;
import org.apache.calcite.linq4j.Enumerator;

/** Creates {@link QueryExecution}s and {@link RowStream}s; keeps their constructors out of the public API. */
public final class QueryExecutions {
  private QueryExecutions() {}

  public static QueryExecution start(
      BufferAllocator allocator, QueryContext context, Schema schema, Supplier<Enumerator<Object>> plan, QueryExecution.BatchLimits limits) {
    return start(allocator, context, schema, plan, limits, null);
  }

  /** As above, and hands every batch to {@code sink} (null: none) as it is produced. */
  public static QueryExecution start(
      BufferAllocator allocator,
      QueryContext context,
      Schema schema,
      Supplier<Enumerator<Object>> plan,
      QueryExecution.BatchLimits limits,
      ResultSink sink) {
    return new QueryExecution(allocator, context, schema, plan, limits, sink);
  }

  /** An execution of a columnar plan whose batches have {@code schema}; hands each to {@code sink} (null: none) too. */
  public static QueryExecution start(
      BufferAllocator allocator,
      QueryContext context,
      Schema schema,
      io.sqe.engine.exec.batch.BatchPlan plan,
      QueryExecution.BatchLimits limits,
      ResultSink sink) {
    return new QueryExecution(allocator, context, schema, plan, limits, sink);
  }

  /** An execution that hands out the record batches of a cached result ({@link ArrowBatches#serialize}). */
  public static QueryExecution replay(
      BufferAllocator allocator, QueryContext context, Schema schema, List<byte[]> batches, QueryExecution.BatchLimits limits) {
    return new QueryExecution(allocator, context, schema, batches, limits);
  }

  /** The batches of a columnar plan, from {@code allocator}, which the stream closes. */
  public static BatchStream batches(io.sqe.engine.exec.batch.BatchPlan plan, QueryContext context, BufferAllocator allocator) {
    return new BatchStream(plan, context, allocator);
  }

  public static RowStream rows(Enumerator<Object> rows, QueryContext context, int columns) {
    return new RowStream(rows, context, columns);
  }
}
