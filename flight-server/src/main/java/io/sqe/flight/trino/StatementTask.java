package io.sqe.flight.trino;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.context.Scope;
import io.sqe.catalog.CatalogCredentials;
import io.sqe.catalog.types.TrinoType;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.audit.StatementFacts;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.exec.ExecutionErrors;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Session;
import io.sqe.engine.trace.Spans;
import io.sqe.engine.txn.Transaction;
import io.sqe.flight.audit.AuditLog;
import io.sqe.flight.audit.StatementAudit;
import io.sqe.flight.auth.HttpAuthentication;
import io.sqe.flight.ops.LogSettings;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.slf4j.MDC;

/**
 * Runs one statement of a Trino client, on a thread of its own, through the same steps as a Flight
 * SQL statement: the session its headers describe, the audit record, preparing, the query
 * tracker (SHOW QUERIES, cancelling, the statement timeout), running, and the audit outcome. A
 * query's rows go into the {@link TrinoQuery}'s pages as they are produced; a command's count,
 * and how it changed the session, go into its last response.
 */
final class StatementTask implements Runnable {
  /** Trino's name for the statement timeout, which its users set as a session property. */
  private static final String QUERY_MAX_RUN_TIME = "query_max_run_time";
  /** Statement kinds whose result is the number of rows they wrote. */
  private static final Set<String> COUNTED = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "CREATE TABLE AS");
  private static final Map<String, String> UPDATE_TYPES =
      Map.of("CREATE TABLE AS", "CREATE TABLE", "BEGIN", "START TRANSACTION", "SET", "SET SESSION", "RESET", "RESET SESSION");
  private static final List<TrinoQuery.Column> COUNT = List.of(new TrinoQuery.Column("rows", TrinoType.BIGINT));

  private final TrinoQuery query;
  private final String sql;
  private final ClientHeaders headers;
  private final HttpAuthentication.Caller caller;
  private final String clientAddress;
  private final Context context;

  /** What every statement of the endpoint shares. */
  record Context(QueryEngine engine, AuditLog audit, TrinoTransactions transactions, String defaultCatalog) {
    Context {
      requireNonNull(engine, "engine is null");
      requireNonNull(audit, "audit is null");
      requireNonNull(transactions, "transactions is null");
      requireNonNull(defaultCatalog, "defaultCatalog is null");
    }
  }

  StatementTask(
      TrinoQuery query, String sql, ClientHeaders headers, HttpAuthentication.Caller caller, String clientAddress, Context context) {
    this.query = requireNonNull(query, "query is null");
    this.sql = requireNonNull(sql, "sql is null");
    this.headers = requireNonNull(headers, "headers is null");
    this.caller = requireNonNull(caller, "caller is null");
    this.clientAddress = clientAddress;
    this.context = requireNonNull(context, "context is null");
  }

  @Override
  public void run() {
    try (MDC.MDCCloseable id = MDC.putCloseable(LogSettings.QUERY_ID, query.id());
        CatalogCredentials.Scope scope = caller.providerToken().isPresent()
            ? CatalogCredentials.use(caller.principal().user(), caller.providerToken().get())
            : CatalogCredentials.Scope.NONE) {
      query.started();
      Session session;
      try {
        session = session();
      } catch (RuntimeException e) {
        query.failed(TrinoError.of(translate(e)), SessionChanges.NONE);
        return;
      }
      runStatement(session);
    } catch (Error e) {
      // Calcite reports some of its own failures as AssertionError, and a statement may run out
      // of heap: the statement must still end, with the error the client sees (logged with the
      // query id), or the client waits for it forever.
      query.failed(TrinoError.of(translate(e)), SessionChanges.NONE);
    } finally {
      query.wake();
    }
  }

  /** The session the headers describe, in the transaction they name. */
  private Session session() {
    Session session = new Session(
        caller.principal(),
        headers.catalog() == null ? context.defaultCatalog() : headers.catalog(),
        headers.schema(),
        headers.zone().orElse(ZoneOffset.UTC),
        null,
        null,
        headers.preparedStatements());
    for (Map.Entry<String, String> property : headers.properties().entrySet()) {
      String name = property.getKey().equalsIgnoreCase(QUERY_MAX_RUN_TIME) ? SessionCommands.STATEMENT_TIMEOUT : property.getKey();
      session = SessionCommands.property(name, property.getValue()).apply(session);
    }
    // Trino's client tags tag the statement as the session property query_tag does.
    if (headers.queryTag() != null && !session.options().containsKey(SessionCommands.QUERY_TAG)) {
      session = session.withOption(SessionCommands.QUERY_TAG, headers.queryTag());
    }
    if (headers.transactionId() != null) {
      session = session.withTransaction(context.transactions().find(headers.transactionId(), caller.principal()));
    }
    return session;
  }

  private void runStatement(Session session) {
    StatementAudit record = context.audit().recordsStatements()
        ? context.audit().statement(caller.principal().user(), clientAddress, session, sql, io.opentelemetry.context.Context.current())
        : StatementAudit.NONE;
    record.span().source(headers.source());
    try (Scope trace = record.trace().makeCurrent()) {
      runStatement(session, record);
    }
  }

  private void runStatement(Session session, StatementAudit record) {
    Prepared statement;
    try {
      statement = context.engine().prepare(session, sql);
    } catch (RuntimeException e) {
      record.failed(query.id(), e, null);
      query.failed(TrinoError.of(translate(e)), SessionChanges.NONE);
      return;
    }
    if (statement instanceof Prepared.Command) {
      runCommand(session, (Prepared.Command) statement, record);
    } else {
      runQuery(session, statement, record);
    }
  }

  private void runCommand(Session session, Prepared.Command command, StatementAudit record) {
    // The command's own text: for EXECUTE, the prepared statement with its values.
    String kind = command.reports() ? null : StatementFacts.of(session, command.sql()).kind();
    if (kind != null) {
      query.updateType(UPDATE_TYPES.getOrDefault(kind, kind));
    }
    CommandResult result;
    try {
      result = context.engine().run(session, command, List.of(), query.id());
    } catch (RuntimeException e) {
      record.failed(query.id(), e, null);
      // A failed COMMIT ends its transaction too.
      query.failed(TrinoError.of(translate(e)), transactionChanges(session, session).build());
      return;
    }
    record.materialized(result.reuse());
    record.offloadedTo(result.offloadedTo());
    record.succeeded(query.id(), result.rowCount());
    Session after = result.sessionChange().apply(session);
    SessionChanges changes = transactionChanges(session, after).session(session, after).build();
    if (command.reports()) {
      // Table maintenance reports what it did: its rows are the result, as a query's are.
      try {
        stream(session, new Prepared.Rows(command.sql(), command.resultSchema(), result.report()));
      } catch (RuntimeException e) {
        query.failed(TrinoError.of(translate(e)), changes);
        return;
      }
      query.finished(changes);
      return;
    }
    if (kind != null && COUNTED.contains(kind)) {
      // The count comes with its row: the CLI prints "INSERT: 2 rows" from the response with the data.
      query.updateCount(result.rowCount());
      query.columns(COUNT);
      query.page(("[" + result.rowCount() + "]").getBytes(StandardCharsets.US_ASCII), 1, () -> false);
    } else {
      // No columns and no rows: what Trino answers for DDL, which the CLI prints as its kind alone.
      query.columns(List.of());
    }
    query.finished(changes);
  }

  /**
   * The headers for a transaction a statement began or ended: one it began is kept for the
   * client's later statements; one that ended (COMMIT, ROLLBACK, a failed COMMIT) is forgotten.
   */
  private SessionChanges.Builder transactionChanges(Session before, Session after) {
    SessionChanges.Builder changes = SessionChanges.builder();
    Optional<Transaction> began = after.openTransaction().filter(t -> t != before.transaction());
    if (began.isPresent()) {
      context.transactions().add(began.get(), caller.principal());
      changes.add(ClientHeaders.STARTED_TRANSACTION_ID, began.get().id());
    }
    Transaction held = before.transaction();
    if (held != null && !held.isOpen()) {
      context.transactions().ended(held);
      changes.add(ClientHeaders.CLEAR_TRANSACTION_ID, "true");
    }
    return changes;
  }

  private void runQuery(Session session, Prepared statement, StatementAudit record) {
    try {
      long rows = stream(session, statement);
      record.succeeded(query.id(), rows);
    } catch (RuntimeException e) {
      record.failed(query.id(), e, query.rowsProduced());
      query.failed(TrinoError.of(translate(e)), SessionChanges.NONE);
      return;
    }
    query.finished(SessionChanges.NONE);
  }

  /**
   * Runs a query and hands its rows to the client page by page as they are produced.
   *
   * @return the rows it returned
   */
  private long stream(Session session, Prepared statement) {
    TrackedQuery tracked = context.engine().queries().find(query.id()).orElse(null);
    long rows = 0;
    try (Spans.Scoped run = Spans.open("sqe.execute");
        QueryExecution execution = context.engine().execute(session, statement, List.of(), query.id())) {
      query.columns(columns(statement.resultSchema()));
      PageEncoder encoder = new PageEncoder(statement.resultSchema(), TrinoQuery.TARGET_PAGE_BYTES);
      PageEncoder.PageSink sink = (page, count) -> query.page(page, count, () -> tracked != null && tracked.isCancelled());
      while (execution.next()) {
        rows += execution.root().getRowCount();
        encoder.encode(execution.root(), sink);
        // What one batch made is the client's to fetch now, not when a page fills.
        encoder.flush(sink);
      }
    }
    return rows;
  }

  private static List<TrinoQuery.Column> columns(Schema schema) {
    List<TrinoQuery.Column> columns = new ArrayList<>();
    for (Field field : schema.getFields()) {
      columns.add(new TrinoQuery.Column(field.getName(), TrinoType.of(field)));
    }
    return columns;
  }

  private SqeException translate(Throwable e) {
    return e instanceof SqeException ? (SqeException) e : ExecutionErrors.translate(e, query.id());
  }
}
