package io.sqe.engine;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import io.sqe.catalog.Catalogs;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.cache.QueryCaches;
import io.sqe.engine.cache.ResultCache;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.command.PreparedStatementCommands;
import io.sqe.engine.command.QueryProcedures;
import io.sqe.engine.command.QueryServices;
import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.exec.BatchStream;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.exec.ParameterValues;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.spill.SpillSpace;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryExecutions;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.ResultSink;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.exec.expr.BatchRows;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.offload.OffloadConfig;
import io.sqe.engine.offload.Placement;
import io.sqe.engine.offload.TrinoOffload;
import io.sqe.engine.plan.PlanReads;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.QueryShape;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.plan.PlanningThreads;
import io.sqe.engine.plan.QueryPlanner;
import io.sqe.engine.plan.SessionVariables;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.security.AccessControl;
import io.sqe.engine.security.StatementPrivileges;
import io.sqe.engine.security.TableAccess;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.functions.BoundedFunctions;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqeTypeSystem;
import io.sqe.engine.sql.ddl.SqlRedactedStatement;
import io.sqe.engine.sql.ddl.SqlShow;
import io.sqe.engine.trace.Spans;
import io.sqe.engine.txn.TableTransaction;
import io.sqe.engine.txn.Transaction;
import io.sqe.engine.txn.TransactionCommands;
import io.sqe.engine.txn.Transactions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TimeZone;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.calcite.DataContext;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.TimeFrameSet;
import org.apache.calcite.rel.type.TimeFrames;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlExplain;
import io.sqe.engine.sql.ddl.SqlExplainAnalyze;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.util.SnapshotUtil;

/**
 * The engine's entry point: prepares SQL statements for a session and runs them. Queries stream
 * their result as Arrow record batches; other statements go to the registered
 * {@link CommandExecutor}s and run once.
 */
public final class QueryEngine {
  private final Catalogs catalogs;
  private final QueryPlanner planner;
  private final BufferAllocator allocator;
  private final EngineConfig config;
  private final List<CommandExecutor> executors;
  private final Transactions transactions;
  private final QueryServices services = new Services(null);
  private final QueryTracker queries;
  private final StatementPrivileges privileges;
  private final AccessControl access;
  private final QueryCaches caches;
  private final SpillSpace spillSpace;
  /** The Trino cluster big queries may run on; empty without one. */
  private final Optional<TrinoOffload> offload;
  private final PreparedStatementCommands preparedStatements = new PreparedStatementCommands(this::prepare);

  public QueryEngine(Catalogs catalogs, BufferAllocator allocator, EngineConfig config) {
    this(catalogs, allocator, config, List.of());
  }

  /** An engine that also runs the statements {@code executors} accept (DDL, DML), without transactions. */
  public QueryEngine(Catalogs catalogs, BufferAllocator allocator, EngineConfig config, List<CommandExecutor> executors) {
    this(catalogs, allocator, config, executors, null);
  }

  /**
   * An engine that runs the statements {@code executors} accept and stages them in transactions
   * that {@code transactions} begins (null: none).
   */
  public QueryEngine(
      Catalogs catalogs, BufferAllocator allocator, EngineConfig config, List<CommandExecutor> executors, Transactions transactions) {
    this(catalogs, allocator, config, executors, transactions, List.of());
  }

  /**
   * An engine that runs the statements {@code executors} accept, stages them in transactions that
   * {@code transactions} begins (null: none), and shows {@code systemSchemas} (information_schema)
   * in every catalog.
   */
  public QueryEngine(
      Catalogs catalogs,
      BufferAllocator allocator,
      EngineConfig config,
      List<CommandExecutor> executors,
      Transactions transactions,
      List<SystemSchema> systemSchemas) {
    this(catalogs, allocator, config, executors, transactions, systemSchemas, AccessControl.ALLOW_ALL);
  }

  /**
   * As above, enforcing {@code access} on every statement: privileges when it is prepared, hidden
   * columns, masks and row filters in its plan.
   */
  public QueryEngine(
      Catalogs catalogs,
      BufferAllocator allocator,
      EngineConfig config,
      List<CommandExecutor> executors,
      Transactions transactions,
      List<SystemSchema> systemSchemas,
      AccessControl access) {
    this(catalogs, allocator, config, executors, transactions, systemSchemas, access, new QueryTracker());
  }

  /**
   * As above, tracking its statements in {@code queries}, which the server also shows (the system
   * table of running and recent statements).
   */
  public QueryEngine(
      Catalogs catalogs,
      BufferAllocator allocator,
      EngineConfig config,
      List<CommandExecutor> executors,
      Transactions transactions,
      List<SystemSchema> systemSchemas,
      AccessControl access,
      QueryTracker queries) {
    this.queries = requireNonNull(queries, "queries is null");
    this.catalogs = requireNonNull(catalogs, "catalogs is null");
    this.access = requireNonNull(access, "access is null");
    this.config = requireNonNull(config, "config is null");
    this.planner = new QueryPlanner(catalogs, systemSchemas, access, config.maxReorderedJoins(), config.planner());
    this.privileges = new StatementPrivileges(access);
    this.allocator = requireNonNull(allocator, "allocator is null");
    List<CommandExecutor> all = new ArrayList<>();
    all.add(new SessionCommands());
    all.add(new TransactionCommands(transactions));
    all.add(new QueryProcedures(queries));
    all.addAll(executors);
    this.executors = List.copyOf(all);
    this.transactions = transactions;
    this.caches = new QueryCaches(catalogs, access, config);
    // Emptied of what a crashed run left there before any query can spill.
    this.spillSpace = SpillSpace.open(config.spill());
    this.offload = config.offload().trinoUri().isPresent() ? Optional.of(new TrinoOffload(config.offload())) : Optional.empty();
  }

  /**
   * The engine's caches by name ({@link QueryCaches#PLAN_CACHE}, {@link QueryCaches#RESULT_CACHE}),
   * those that are on, and the scan's (scan planning, Parquet footers), each recording hit, miss
   * and eviction statistics.
   */
  public Map<String, Cache<?, ?>> caches() {
    return caches.byName();
  }

  /** Begins a transaction for {@code session}'s user; statements join it through {@link Session#withTransaction}. */
  public Transaction beginTransaction(Session session) {
    if (transactions == null) {
      throw new SqeException(ErrorCode.NOT_SUPPORTED, "This server does not run transactions");
    }
    return transactions.begin(session.principal());
  }

  public EngineConfig config() {
    return config;
  }

  /** The access policy the engine enforces, for statements that reach the catalogs another way (bulk ingest). */
  public AccessControl accessControl() {
    return access;
  }

  /** The statements this engine runs, by query id: to cancel them and to list them. */
  public QueryTracker queries() {
    return queries;
  }

  /** How long a statement of {@code session} may run: the session's limit within the engine's; zero for none. */
  public Duration statementTimeout(Session session) {
    return config.statementTimeout(session.statementTimeout());
  }

  /**
   * Parses, validates and plans a statement under a query id of its own; every error in the SQL
   * surfaces here.
   */
  public Prepared prepare(Session session, String sql) {
    return prepare(session, sql, UUID.randomUUID().toString());
  }

  /**
   * Parses, validates and plans a statement; every error in the SQL surfaces here. While it is
   * planned, the statement is listed under {@code queryId} (state PLANNING) and cancelling that
   * query stops the planning; its statement timeout counts from now.
   */
  public Prepared prepare(Session session, String sql, String queryId) {
    return prepare(session, sql, queryId, List.of());
  }

  /**
   * A table read at one snapshot: what a statement planned on one server read, so that another
   * server running it again reads the same data.
   */
  public record TableSnapshot(String catalog, TableIdentifier table, long snapshotId) {
    public TableSnapshot {
      requireNonNull(catalog, "catalog is null");
      requireNonNull(table, "table is null");
    }
  }

  /**
   * As {@link #prepare(Session, String, String)}, with each of {@code snapshots}' tables read at
   * its snapshot wherever the statement reads it without time travel of its own.
   *
   * @throws SqeException NOT_FOUND when a table or snapshot is gone (dropped, or expired by
   *     maintenance)
   */
  public Prepared prepare(Session session, String sql, String queryId, List<TableSnapshot> snapshots) {
    try (QueryRun run = queries.plan(queryId, session.principal(), sql, statementTimeout(session))) {
      Prepared prepared = PlanningThreads.plan(run, () -> prepareStatement(session, sql, pinned(snapshots)));
      run.succeeded();
      return prepared;
    }
  }

  private List<IcebergTable> pinned(List<TableSnapshot> snapshots) {
    List<IcebergTable> tables = new ArrayList<>();
    for (TableSnapshot read : snapshots) {
      String name = read.catalog() + "." + read.table();
      LakehouseCatalog catalog = catalogs.find(read.catalog())
          .orElseThrow(() -> new SqeException(ErrorCode.NOT_FOUND, "Catalog '" + read.catalog() + "' does not exist"));
      org.apache.iceberg.Table table = catalog.loadTable(read.table())
          .orElseThrow(() -> new SqeException(ErrorCode.NOT_FOUND, "Table " + name + " the statement read no longer exists"));
      if (table.snapshot(read.snapshotId()) == null) {
        // The server's table cache may predate the snapshot: look once more in the catalog.
        catalog.invalidate(read.table());
        table = catalog.loadTable(read.table()).orElse(table);
      }
      if (table.snapshot(read.snapshotId()) == null) {
        throw new SqeException(
            ErrorCode.NOT_FOUND,
            "Table " + name + " no longer has snapshot " + read.snapshotId() + ", which the statement was planned against; run it again");
      }
      tables.add(IcebergTable.atSnapshot(
          catalog, read.table(), table, read.snapshotId(), SnapshotUtil.schemaFor(table, read.snapshotId())));
    }
    return tables;
  }

  /**
   * The snapshot each table a prepared query reads without time travel is at: the one current in
   * the catalog now (as the server's table cache has it, which is what the query reads when it
   * runs). Reads by time travel are left out: the statement names their snapshots itself, and
   * pinning the table would move its other reads too. Empty for anything else than a query, and
   * without the tables that have no snapshot yet.
   */
  public List<TableSnapshot> snapshotsRead(Prepared statement) {
    if (!(statement instanceof Prepared.Query query)) {
      return List.of();
    }
    List<TableSnapshot> snapshots = new ArrayList<>();
    for (PlanReads.ScanRead scan : query.plan().reads().scans()) {
      if (scan.snapshotId() != null) {
        continue;
      }
      Long snapshotId = catalogs.find(scan.catalog())
          .flatMap(catalog -> catalog.loadTable(scan.id()))
          .map(org.apache.iceberg.Table::currentSnapshot)
          .map(org.apache.iceberg.Snapshot::snapshotId)
          .orElse(null);
      if (snapshotId != null) {
        TableSnapshot read = new TableSnapshot(scan.catalog(), scan.id(), snapshotId);
        if (!snapshots.contains(read)) {
          snapshots.add(read);
        }
      }
    }
    return snapshots;
  }

  /**
   * {@code tables} each with the snapshot current now, as the server's table cache has it (what a
   * query that runs now reads); -1 for a table gone or without a snapshot.
   */
  public List<TableSnapshot> currentSnapshots(List<TableSnapshot> tables) {
    List<TableSnapshot> current = new ArrayList<>();
    for (TableSnapshot read : tables) {
      long snapshotId = catalogs.find(read.catalog())
          .flatMap(catalog -> catalog.loadTable(read.table()))
          .map(org.apache.iceberg.Table::currentSnapshot)
          .map(org.apache.iceberg.Snapshot::snapshotId)
          .orElse(-1L);
      current.add(new TableSnapshot(read.catalog(), read.table(), snapshotId));
    }
    return current;
  }

  private Prepared prepareStatement(Session session, String sql, List<IcebergTable> pinned) {
    // A transaction's statements read what it staged, which no cached plan knows of; a statement
    // pinned to snapshots is planned for them alone. Where a cached plan runs is decided again on
    // each use: the snapshots it would read may have grown.
    boolean cacheable = session.openTransaction().isEmpty() && pinned.isEmpty();
    if (cacheable && caches.plans().isPresent()) {
      Optional<PlannedQuery> cached = caches.plans().get().find(session, planner.options(session), sql);
      if (cached.isPresent()) {
        return new Prepared.Query(place(session, cached.get(), sql, pinned).plan());
      }
    }
    SqlNode node = Spans.traced("sqe.parse", () -> SqeParser.parse(sql));
    if (node instanceof SqlExplainAnalyze analyze) {
      if (!analyze.getExplicandum().isA(SqlKind.QUERY)) {
        throw new SqeException(ErrorCode.NOT_SUPPORTED, "EXPLAIN ANALYZE runs queries only, not "
            + statementName(analyze.getExplicandum()) + " statements");
      }
      if (analyze.getDynamicParamCount() > 0) {
        throw new SqeException(ErrorCode.NOT_SUPPORTED, "EXPLAIN ANALYZE takes no ? parameters");
      }
      return new Prepared.Command(sql, new ExplainAnalyze(this, planQuery(session, analyze.getExplicandum(), sql, pinned).plan()));
    }
    if (node.getKind() == SqlKind.EXPLAIN && !((SqlExplain) node).getExplicandum().isA(SqlKind.QUERY)) {
      SqlNode statement = ((SqlExplain) node).getExplicandum();
      privileges.check(session, statement);
      return Explains.command(sql, statement, statementName(statement), new CommandContext(session, catalogs, services, "prepare"), executors);
    }
    if (node.getKind() == SqlKind.EXPLAIN) {
      Placed placed = planQuery(session, ((SqlExplain) node).getExplicandum(), sql, pinned);
      return Explains.query(sql, placed.plan(), offload.map(TrinoOffload::where), placed.placement());
    }
    if (node instanceof SqlShow && ((SqlShow) node).kind() == SqlShow.Kind.QUERIES) {
      return ShowQueries.rows(sql, queries, session.principal(), (SqlShow) node);
    }
    Optional<Prepared> named = preparedStatements.prepare(session, node, sql);
    if (named.isPresent()) {
      return named.get();
    }
    if (node.isA(SqlKind.QUERY)) {
      PlannedQuery plan = planner.plan(session, node, sql, readTables(session, pinned));
      if (cacheable) {
        caches.plans().ifPresent(plans -> plans.offer(session, planner.options(session), sql, plan));
      }
      return new Prepared.Query(place(session, plan, sql, pinned).plan());
    }
    privileges.check(session, node);
    CommandContext context = new CommandContext(session, catalogs, services, "prepare");
    for (CommandExecutor executor : executors) {
      Optional<PreparedCommand> command = executor.prepare(context, node);
      if (command.isPresent()) {
        checkTransaction(session, command.get(), statementName(node));
        // A password in the text must not reach SHOW QUERIES or anything else that keeps the text.
        String text = node instanceof SqlRedactedStatement ? ((SqlRedactedStatement) node).redactedText() : sql;
        return new Prepared.Command(text, command.get());
      }
    }
    throw new SqeException(ErrorCode.NOT_SUPPORTED, statementName(node) + " statements are not supported yet");
  }

  /** A query's plan, with where it runs and why; no placement without a Trino cluster. */
  private record Placed(PlannedQuery plan, Placement placement) {}

  private Placed planQuery(Session session, SqlNode node, String sql, List<IcebergTable> pinned) {
    return place(session, planner.plan(session, node, sql, readTables(session, pinned)), sql, pinned);
  }

  /**
   * Decides where {@code plan} runs ({@link Placement}): on the Trino cluster, the plan with the
   * statement Trino runs (the local plan stays for the result's schema and for a fallback), else
   * as it is. Outside a transaction only, whose staged writes Trino cannot see. A query Trino
   * cannot run (it reads SQE's system tables, or a table with no snapshot) runs here.
   */
  private Placed place(Session session, PlannedQuery plan, String sql, List<IcebergTable> pinned) {
    if (offload.isEmpty()) {
      return new Placed(plan, null);
    }
    // Planned again on another server for a ticket: the Trino statement would pin the snapshots
    // current now. A transaction's reason comes first.
    Placement placement = pinned.isEmpty() || session.openTransaction().isPresent()
        ? placement(session, plan, PlanningThreads::checkCancelled)
        : Placement.local("pinned to the snapshots of a ticket");
    if (!placement.onTrino()) {
      return new Placed(plan, placement);
    }
    // Validation rewrites a statement's tree in place, so the Trino statement is planned from a fresh one.
    SqlNode statement = SqeParser.parse(sql);
    if (statement instanceof SqlExplain explain) {
      statement = explain.getExplicandum();
    }
    try {
      return new Placed(plan.offloadedAs(planner.trinoStatement(session, statement, sql)), placement);
    } catch (SqeException e) {
      if (e.code() == ErrorCode.NOT_SUPPORTED) {
        return new Placed(plan, Placement.local("Trino cannot run it: " + e.getMessage()));
      }
      throw e;
    }
  }

  /** Where a statement that reads {@code plan} runs, with a Trino cluster: here in a transaction, else as {@link Placement#of} says. */
  private Placement placement(Session session, PlannedQuery plan, Runnable checkCancelled) {
    if (session.openTransaction().isPresent()) {
      return Placement.local("in a transaction, whose staged writes Trino cannot see");
    }
    return Placement.of(mode(session), offload.orElseThrow().config(), plan.reads().scanBytes(), checkCancelled);
  }

  /** Where {@code session} asks its queries to run: its {@code offload} option, {@code auto} by default. */
  private static OffloadConfig.Mode mode(Session session) {
    String option = session.options().get(OffloadConfig.SESSION_OPTION);
    return option == null ? OffloadConfig.Mode.AUTO : OffloadConfig.Mode.of(option);
  }

  /** What a statement is called in messages: its operator's name, e.g. CREATE TABLE or USE. */
  private static String statementName(SqlNode node) {
    if (node instanceof SqlCall) {
      String name = ((SqlCall) node).getOperator().getName();
      if (!name.isBlank()) {
        return name.toUpperCase(Locale.ROOT);
      }
    }
    return node.getKind().sql;
  }

  /**
   * Runs a prepared command once.
   *
   * @param parameters values for the statement's parameters, as plain Java values
   */
  public CommandResult run(Session session, Prepared.Command command, List<?> parameters, String queryId) {
    checkTransaction(session, command.command(), "This statement");
    List<Object> values = internalParameters(command.parameterTypes(), parameters);
    try (QueryRun run = queries.begin(queryId, session.principal(), command.sql(), statementTimeout(session))) {
      CommandResult result = Spans.traced("sqe.execute", () ->
          command.command().execute(new CommandContext(session, catalogs, new Services(run), run.operationId()), values));
      run.succeeded();
      return result;
    } catch (RuntimeException | ExceptionInInitializerError e) {
      throw ExecutionErrors.translate(e, queryId);
    } finally {
      // A command's answer goes back in the same call: its client's side closes with its run.
      queries.findWithHistory(queryId).ifPresent(TrackedQuery::markClosed);
    }
  }

  /**
   * Starts running a prepared query (or a known result). The caller pulls batches from the
   * returned execution and must close it.
   *
   * @param parameters values for the statement's parameters, as plain Java values
   */
  public QueryExecution execute(Session session, Prepared prepared, List<?> parameters, String queryId) {
    return execute(session, prepared, parameters, queryId, true);
  }

  /**
   * @param resultCache whether the result may come from, and go to, the result cache; EXPLAIN
   *     ANALYZE runs the operators every time
   */
  QueryExecution execute(Session session, Prepared prepared, List<?> parameters, String queryId, boolean resultCache) {
    if (prepared instanceof Prepared.Command) {
      throw new IllegalArgumentException("Commands run through run(), not execute()");
    }
    List<Object> values = internalParameters(prepared.parameterTypes(), parameters);
    QueryRun run = queries.begin(queryId, session.principal(), prepared.sql(), statementTimeout(session));
    BufferAllocator queryAllocator;
    try {
      queryAllocator = allocator.newChildAllocator("query-" + queryId, 0, config.maxQueryMemoryBytes());
    } catch (RuntimeException e) {
      run.close();
      throw ExecutionErrors.translate(e, queryId);
    }
    try {
      Supplier<Enumerator<Object>> rows;
      QueryContext context;
      ResultSink sink = null;
      if (prepared instanceof Prepared.Query) {
        PlannedQuery plan = ((Prepared.Query) prepared).plan();
        // Kept with the statement for the web console: a prepared statement is planned under its handle, not this id.
        queries.find(queryId).ifPresent(query -> query.planned(plan.profile()));
        QueryContext queryContext = context(session, plan, values, run, queryId);
        context = queryContext;
        Optional<ResultCache.Key> key = !resultCache || session.openTransaction().isPresent() || plan.trinoStatement() != null
            ? Optional.empty()
            : caches.results().flatMap(results -> results.key(session, plan, values));
        if (key.isPresent()) {
          Optional<List<byte[]>> cached = caches.results().get().find(key.get());
          if (cached.isPresent()) {
            run.stats().resultCached(true);
            return QueryExecutions.replay(queryAllocator, context, prepared.resultSchema(), cached.get(), config.batchLimits());
          }
          sink = caches.results().get().capture(key.get());
        }
        if (plan.trinoStatement() != null) {
          Supplier<Enumerator<Object>> offloaded = () -> offload.orElseThrow()
              .rows(plan.trinoStatement(), prepared.resultSchema(), run, () -> plan.bindable().bind(queryContext).enumerator());
          return QueryExecutions.start(queryAllocator, context, prepared.resultSchema(), offloaded, config.batchLimits(), null);
        }
        if (plan.batchPlan() != null) {
          return QueryExecutions.start(queryAllocator, context, prepared.resultSchema(), plan.batchPlan(), config.batchLimits(), sink);
        }
        rows = () -> plan.bindable().bind(queryContext).enumerator();
      } else {
        Prepared.Rows fixed = (Prepared.Rows) prepared;
        context = new QueryContext(
            queryId, planner.rootSchema(session).plus(), new SqeJavaTypeFactory(), executionValues(session), run, executionOptions(session), spillSpace);
        List<Object> list = new ArrayList<>();
        for (Object[] row : fixed.rows()) {
          list.add(row.length == 1 ? row[0] : row);
        }
        rows = () -> Linq4j.enumerator(list);
      }
      return QueryExecutions.start(queryAllocator, context, prepared.resultSchema(), rows, config.batchLimits(), sink);
    } catch (RuntimeException | ExceptionInInitializerError e) {
      queryAllocator.close();
      run.close();
      throw ExecutionErrors.translate(e, queryId);
    }
  }

  /** Refuses a statement that would commit at once (DDL) inside a transaction, whose writes must land together. */
  private static void checkTransaction(Session session, PreparedCommand command, String statement) {
    if (session.openTransaction().isPresent() && !command.runsInTransaction()) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          statement + " cannot run inside a transaction: it commits at once. Run it before BEGIN or after COMMIT;"
              + " a transaction stages INSERT, UPDATE, DELETE, MERGE and CREATE [OR REPLACE] TABLE ... AS");
    }
  }

  /**
   * The tables a statement reads instead of the catalog's: those its transaction staged (so it
   * reads its own writes), then {@code explicit} ones, which win over staged ones of the same name.
   */
  private static List<IcebergTable> readTables(Session session, List<IcebergTable> explicit) {
    Optional<Transaction> transaction = session.openTransaction();
    if (transaction.isEmpty() || !(transaction.get() instanceof TableTransaction staging)) {
      return explicit;
    }
    List<IcebergTable> tables = new ArrayList<>();
    for (IcebergTable staged : staging.tables()) {
      boolean shadowed = explicit.stream()
          .anyMatch(t -> t.catalog().name().equals(staged.catalog().name()) && t.id().equals(staged.id()));
      if (!shadowed) {
        tables.add(staged);
      }
    }
    tables.addAll(explicit);
    return tables;
  }

  private static List<Object> internalParameters(List<RelDataType> types, List<?> parameters) {
    if (parameters.size() != types.size()) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "The statement has " + types.size() + " parameters but " + parameters.size() + " values were bound");
    }
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      values.add(ParameterValues.toInternal(parameters.get(i), types.get(i), i));
    }
    return values;
  }

  private QueryContext context(
      Session session, PlannedQuery plan, List<Object> parameters, QueryRun run, String queryId) {
    Map<String, Object> values = executionValues(session);
    for (int i = 0; i < parameters.size(); i++) {
      values.put("?" + i, parameters.get(i));
    }
    values.putAll(plan.internalParameters());
    run.stats().planningNanos(plan.planningNanos());
    run.stats().planCached(plan.cached());
    return new QueryContext(queryId, plan.rootSchema(), new SqeJavaTypeFactory(), values, run, executionOptions(session), spillSpace);
  }

  /** The options {@code session}'s plans run with: the engine's, with those the session set. */
  public ExecutionOptions executionOptions(Session session) {
    return config.execution().withAll(session.options());
  }

  /** The options {@code session}'s statements are planned with (see {@link QueryPlanner#options}). */
  public PlannerOptions plannerOptions(Session session) {
    return planner.options(session);
  }

  /** The {@link SessionVariables} of an execution, with the engine's limits on its values. */
  private Map<String, Object> executionValues(Session session) {
    Map<String, Object> values = SessionVariables.of(session);
    values.put(BoundedFunctions.VARIABLE, config.maxValueSize());
    return values;
  }

  /**
   * The query machinery commands use for the queries inside them. A running command's queries
   * share its run, so that cancelling the command or its timeout stops them; queries run while a
   * statement is prepared get runs of their own.
   */
  private final class Services implements QueryServices {
    private final QueryRun run;

    Services(QueryRun run) {
      this.run = run;
    }

    @Override
    public PlannedQuery plan(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
      // A write's query reads its sources, never a materialized view's storage in their place:
      // the lineage it records (and a refresh of the view itself) needs the sources' snapshots.
      Session sources = session.withOption(PlannerOptions.MATERIALIZED_VIEW_REWRITE, "false");
      return PlanningThreads.plan(planning(), () -> planner.plan(sources, query, sql, readTables(session, tables)));
    }

    @Override
    public Optional<Placement> placeWrite(Session session, PlannedQuery source) {
      if (offload.isEmpty()) {
        return Optional.empty();
      }
      if (!source.parameterTypes().isEmpty()) {
        return Optional.of(Placement.local("Trino cannot run it: its query has ? parameters"));
      }
      // Placed while its command runs, or while EXPLAIN prepares it (on the planning thread).
      return Optional.of(placement(session, source, run != null ? run::checkCancelled : PlanningThreads::checkCancelled));
    }

    @Override
    public Optional<String> offloadTarget() {
      return offload.map(TrinoOffload::where);
    }

    @Override
    public QueryShape describe(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
      return PlanningThreads.plan(planning(), () -> planner.describe(session, query, sql, readTables(session, tables)));
    }

    @Override
    public boolean stillCurrent(Session session, PlanReads reads) {
      return PlanReads.PlanContext.of(session).equals(reads.versions().context()) && caches.current(reads, session.principal());
    }

    @Override
    public RelNode logicalPlan(Session session, SqlNode query, String sql, List<IcebergTable> tables) {
      return PlanningThreads.plan(planning(), () -> planner.logical(session, query, sql, readTables(session, tables)));
    }

    @Override
    public String trinoSelect(Session session, SqlNode query, String sql, List<String> types, List<String> names) {
      return planner.trinoSelect(session, query, sql, types, names);
    }

    @Override
    public Optional<CommandResult> runOnTrino(String statement, BooleanSupplier unchanged) {
      TrinoOffload cluster = offload.orElseThrow(() -> new IllegalStateException("No Trino cluster is configured"));
      OptionalLong count = cluster.write(statement, running(), unchanged);
      return count.isPresent()
          ? Optional.of(CommandResult.rows(count.getAsLong()).offloadedTo(cluster.config().trinoUri().orElseThrow()))
          : Optional.empty();
    }

    /**
     * The run a command's planning belongs to: a command plans its queries as it runs, under its
     * run's cancellation; while it is prepared, on the planning thread already.
     */
    private QueryRun planning() {
      return run != null ? run : PlanningThreads.current().orElseGet(() -> QueryRun.untracked("plan"));
    }

    /** The command's run: writes are placed and run while their command runs, not while it is prepared. */
    private QueryRun running() {
      if (run == null) {
        throw new IllegalStateException("A write is placed and run while its command runs");
      }
      return run;
    }

    @Override
    public TableAccess access(Session session, String catalog, TableIdentifier table) {
      return access.tableAccess(session.principal(), catalog, String.join(".", table.namespace().levels()), table.name());
    }

    @Override
    public RowStream rows(Session session, PlannedQuery query, List<Object> parameters, String queryId) {
      if (query.batchPlan() != null && BatchRows.readable(query.resultSchema())) {
        BatchStream batches = batches(session, query, parameters, queryId);
        int columns = query.resultType().getFieldCount();
        return QueryExecutions.rows(new BatchRows(batches, columns), batches.context(), columns);
      }
      QueryContext context = context(session, query, parameters, run == null ? QueryRun.untracked(queryId) : run, queryId);
      try {
        return QueryExecutions.rows(query.bindable().bind(context).enumerator(), context, query.resultType().getFieldCount());
      } catch (RuntimeException | ExceptionInInitializerError e) {
        throw ExecutionErrors.translate(e, queryId);
      }
    }

    @Override
    public BatchStream batches(Session session, PlannedQuery query, List<Object> parameters, String queryId) {
      if (query.batchPlan() == null) {
        throw new IllegalArgumentException("The query has no columnar plan");
      }
      QueryContext context = context(session, query, parameters, run == null ? QueryRun.untracked(queryId) : run, queryId);
      try {
        return QueryExecutions.batches(
            query.batchPlan(), context, allocator.newChildAllocator("query-" + queryId, 0, config.maxQueryMemoryBytes()));
      } catch (RuntimeException e) {
        throw ExecutionErrors.translate(e, queryId);
      }
    }

    @Override
    public BufferAllocator allocator(String queryId) {
      return allocator.newChildAllocator("query-" + queryId + "-write", 0, config.maxQueryMemoryBytes());
    }
  }
}
