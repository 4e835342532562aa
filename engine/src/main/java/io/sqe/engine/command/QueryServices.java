package io.sqe.engine.command;

import io.sqe.engine.exec.BatchStream;
import org.apache.arrow.memory.BufferAllocator;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.QueryShape;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Session;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.catalog.TableIdentifier;

/** The engine's query machinery, as commands use it for the queries inside them. */
public interface QueryServices {
  /** Validates, optimises and compiles a query; errors in it carry their SQL position. */
  default PlannedQuery plan(Session session, SqlNode query, String sql) {
    return plan(session, query, sql, List.of());
  }

  /**
   * Plans a query that reads each of {@code tables} wherever it names that table (by catalog and
   * identifier), instead of the table as loaded from the catalog: how UPDATE, DELETE and MERGE
   * read their target as of one snapshot, with each row's data file and position.
   */
  PlannedQuery plan(Session session, SqlNode query, String sql, List<IcebergTable> tables);

  /**
   * Validates a query without optimising or compiling it: its columns and parameter types, as a
   * view's definition stores them; errors in it carry their SQL position.
   */
  default QueryShape describe(Session session, SqlNode query, String sql) {
    return describe(session, query, sql, List.of());
  }

  /** As {@link #describe(Session, SqlNode, String)}, reading {@code tables} as {@link #plan(Session, SqlNode, String, List)} does. */
  QueryShape describe(Session session, SqlNode query, String sql, List<IcebergTable> tables);

  /**
   * Whether what planning read ({@code reads}: the session facts, every table's identity and
   * schema, every view's version, the policy's verdicts) is still so for {@code session}: then a
   * plan or shape made from them still holds. Tables load through the catalogs' table cache.
   */
  boolean stillCurrent(Session session, PlanReads reads);

  /**
   * A query's logical plan, validated and converted but not optimised or compiled, reading {@code
   * tables} as {@link #plan(Session, SqlNode, String, List)} does; errors in it carry their SQL
   * position.
   */
  RelNode logicalPlan(Session session, SqlNode query, String sql, List<IcebergTable> tables);

  /**
   * What the session's principal may do with table {@code table} of catalog {@code catalog} under
   * the access policy: how a statement that writes columns checks which it may write.
   */
  TableAccess access(Session session, String catalog, TableIdentifier table);

  /**
   * Runs a planned query and hands back its rows in the engine's value representation: from its
   * columnar plan when it has one whose result columns have a row representation (not nested, not
   * TIME), else on the row runtime.
   */
  RowStream rows(Session session, PlannedQuery query, List<Object> parameters, String queryId);

  /**
   * Runs a planned query that has a columnar plan ({@link PlannedQuery#batchPlan()}) and hands back
   * its record batches, from an allocator of its own under the engine's per-query memory limit.
   */
  BatchStream batches(Session session, PlannedQuery query, List<Object> parameters, String queryId);

  /**
   * An allocator for the batches a command makes itself (a copy-on-write rewrite's), under the
   * engine's per-query memory limit; the command closes it.
   */
  BufferAllocator allocator(String queryId);

  /**
   * Where a write whose rows come from {@code source} runs, as a query's placement decides (the
   * session's {@code offload} option, {@code source}'s estimated scan): on the Trino cluster, which
   * then commits it, or here; here in a transaction, whose staged writes Trino cannot see, and for
   * a source with {@code ?} parameters. Empty without a Trino cluster.
   */
  Optional<Placement> placeWrite(Session session, PlannedQuery source);

  /** What EXPLAIN says of a statement placed on the Trino cluster ("offloaded to trino" and its address); empty without one. */
  default Optional<String> offloadTarget() {
    return Optional.empty();
  }

  /**
   * {@code query} as the SELECT of a write Trino runs: the session's row filters and column masks
   * inlined, every table pinned to the snapshot planned against, each result column cast to its
   * Trino type of {@code types} and named as {@code names} says. NOT_SUPPORTED when Trino cannot
   * run it.
   */
  String trinoSelect(Session session, SqlNode query, String sql, List<String> types, List<String> names);

  /**
   * Runs {@code statement}, a write Trino commits, on the cluster as the service user: the
   * command's result (its row count, and the cluster that ran it). Empty when the cluster failed,
   * committed nothing ({@code unchanged}) and {@code offload.fallback} says the write runs here
   * instead; otherwise a failure is UNAVAILABLE, naming the cluster.
   */
  Optional<CommandResult> runOnTrino(String statement, BooleanSupplier unchanged);
}
