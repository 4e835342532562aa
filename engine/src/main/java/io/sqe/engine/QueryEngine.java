package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.ParameterValues;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryExecutions;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.QueryPlanner;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.SqeTypeSystem;
import org.apache.calcite.rel.type.TimeFrameSet;
import org.apache.calcite.rel.type.TimeFrames;
import io.sqe.engine.sql.SqeParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;

/**
 * The engine's entry point: prepares SQL statements for a session and runs them, streaming the
 * result as Arrow record batches.
 */
public final class QueryEngine {
  /** Calendar units for FLOOR/CEIL and date_trunc, including the Monday-based ISOWEEK. */
  private static final TimeFrameSet TIME_FRAMES = SqeTypeSystem.INSTANCE.deriveTimeFrameSet(TimeFrames.CORE);

  private final QueryPlanner planner;
  private final BufferAllocator allocator;
  private final EngineConfig config;

  public QueryEngine(Catalogs catalogs, BufferAllocator allocator, EngineConfig config) {
    this.planner = new QueryPlanner(requireNonNull(catalogs, "catalogs is null"));
    this.allocator = requireNonNull(allocator, "allocator is null");
    this.config = requireNonNull(config, "config is null");
  }

  public EngineConfig config() {
    return config;
  }

  /** Parses, validates and plans a statement; every error in the SQL surfaces here. */
  public Prepared prepare(Session session, String sql) {
    SqlNode node = SqeParser.parse(sql);
    if (node.getKind() == SqlKind.EXPLAIN) {
      SqlExplain explain = (SqlExplain) node;
      PlannedQuery plan = planner.plan(session, explain.getExplicandum(), sql);
      List<Object[]> rows = new ArrayList<>();
      for (String line : plan.explain().split("\n")) {
        rows.add(new Object[] {line});
      }
      Schema schema = new Schema(List.of(new Field("plan", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));
      return new Prepared.Rows(sql, schema, rows);
    }
    if (!node.isA(SqlKind.QUERY)) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, statementName(node) + " statements are not supported yet");
    }
    PlannedQuery plan = planner.plan(session, node, sql);
    return new Prepared.Query(plan);
  }

  /** What a statement is called in messages: its operator's name, e.g. CREATE TABLE or USE. */
  private static String statementName(SqlNode node) {
    if (node instanceof org.apache.calcite.sql.SqlCall) {
      String name = ((org.apache.calcite.sql.SqlCall) node).getOperator().getName();
      if (!name.isBlank()) {
        return name.toUpperCase(java.util.Locale.ROOT);
      }
    }
    return node.getKind().sql;
  }

  /**
   * Starts running a prepared statement. The caller pulls batches from the returned execution and
   * must close it.
   *
   * @param parameters values for the statement's parameters, as plain Java values
   */
  public QueryExecution execute(Session session, Prepared prepared, List<?> parameters, String queryId) {
    List<RelDataType> types = prepared.parameterTypes();
    if (parameters.size() != types.size()) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "The statement has " + types.size() + " parameters but " + parameters.size() + " values were bound");
    }
    QueryStats stats = new QueryStats();
    BufferAllocator queryAllocator =
        allocator.newChildAllocator("query-" + queryId, 0, config.maxQueryMemoryBytes());
    try {
      Map<String, Object> values = new HashMap<>();
      long now = System.currentTimeMillis();
      TimeZone zone = TimeZone.getTimeZone(session.timeZone());
      long offset = zone.getOffset(now);
      values.put(DataContext.Variable.UTC_TIMESTAMP.camelName, now);
      values.put(DataContext.Variable.CURRENT_TIMESTAMP.camelName, now + offset);
      values.put(DataContext.Variable.LOCAL_TIMESTAMP.camelName, now + offset);
      values.put(DataContext.Variable.TIME_ZONE.camelName, zone);
      values.put(DataContext.Variable.USER.camelName, session.principal().user());
      values.put(DataContext.Variable.SYSTEM_USER.camelName, session.principal().user());
      values.put(DataContext.Variable.LOCALE.camelName, java.util.Locale.ROOT);
      values.put(DataContext.Variable.TIME_FRAME_SET.camelName, TIME_FRAMES);
      for (int i = 0; i < types.size(); i++) {
        values.put("?" + i, ParameterValues.toInternal(parameters.get(i), types.get(i), i));
      }
      Enumerator<Object> rows;
      QueryContext context;
      if (prepared instanceof Prepared.Query) {
        PlannedQuery plan = ((Prepared.Query) prepared).plan();
        values.putAll(plan.internalParameters());
        context = new QueryContext(queryId, plan.rootSchema(), new SqeJavaTypeFactory(), values, stats);
        stats.planningNanos(plan.planningNanos());
        rows = plan.bindable().bind(context).enumerator();
      } else {
        Prepared.Rows fixed = (Prepared.Rows) prepared;
        context = new QueryContext(queryId, planner.rootSchema().plus(), new SqeJavaTypeFactory(), values, stats);
        List<Object> list = new ArrayList<>();
        for (Object[] row : fixed.rows()) {
          list.add(row.length == 1 ? row[0] : row);
        }
        rows = Linq4j.enumerator(list);
      }
      return QueryExecutions.start(queryAllocator, context, prepared.resultSchema(), rows, config);
    } catch (RuntimeException e) {
      queryAllocator.close();
      throw ExecutionErrors.translate(e, queryId);
    }
  }
}
