package io.sqe.flight.runtime;

import static io.sqe.flight.runtime.RuntimeTable.micros;
import static java.util.Objects.requireNonNull;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.command.SessionCommands;
import io.sqe.engine.exec.QueryStats;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.plan.SystemSchema;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import io.sqe.flight.runtime.RuntimeTable.Column;
import io.sqe.flight.session.ClientSession;
import io.sqe.flight.session.SessionManager;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

/**
 * {@code system.runtime}, after Trino's: {@code queries}, the statements planned, queued, running
 * and recently ended, and {@code sessions}, the open Flight sessions. A user sees their own rows,
 * an admin everyone's; so a statement's text is only ever shown to its user and admins.
 */
public final class RuntimeSchema implements SystemSchema {
  public static final String NAME = "runtime";
  /** The session option that tags a session's statements. */
  public static final String QUERY_TAG = SessionCommands.QUERY_TAG;

  private static final List<Column> QUERY_COLUMNS = List.of(
      Column.text("query_id", false),
      Column.text("state", false),
      Column.text("user", false),
      Column.text("session_id", true),
      Column.text("source", true),
      Column.text("query_tag", true),
      Column.text("query", false),
      Column.time("created", false),
      Column.time("planned", true),
      Column.time("started", true),
      Column.time("first_batch", true),
      Column.time("last_batch", true),
      Column.time("end", true),
      Column.time("closed", true),
      Column.number("elapsed_ms", false),
      Column.number("planning_ms", false),
      Column.number("queued_ms", true),
      Column.number("rows", true),
      Column.number("bytes_scanned", true),
      Column.number("peak_memory_bytes", true),
      Column.number("spilled_bytes", true),
      Column.text("error_code", true),
      Column.text("error_message", true));

  private static final List<Column> SESSION_COLUMNS = List.of(
      Column.text("session_id", false),
      Column.text("user", false),
      Column.text("catalog", false),
      Column.text("schema", true),
      Column.text("query_tag", true),
      Column.time("created", false),
      Column.time("last_used", false));

  private final QueryTracker queries;
  private final SessionManager sessions;

  public RuntimeSchema(QueryTracker queries, SessionManager sessions) {
    this.queries = requireNonNull(queries, "queries is null");
    this.sessions = requireNonNull(sessions, "sessions is null");
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean inSystemCatalog() {
    return true;
  }

  @Override
  public org.apache.calcite.schema.Schema schema(LakehouseCatalog catalog, Session session) {
    Principal caller = session.principal();
    Map<String, Table> tables = Map.of(
        "queries", new RuntimeTable(QUERY_COLUMNS, () -> queryRows(caller)),
        "sessions", new RuntimeTable(SESSION_COLUMNS, () -> sessionRows(caller)));
    return new AbstractSchema() {
      @Override
      protected Map<String, Table> getTableMap() {
        return tables;
      }
    };
  }

  private List<Object[]> queryRows(Principal caller) {
    List<Object[]> rows = new ArrayList<>();
    Instant now = Instant.now();
    for (TrackedQuery query : queries.allWithHistory()) {
      if (!query.isControllableBy(caller)) {
        continue;
      }
      Optional<QueryStats> stats = query.stats().filter(s -> query.started().isPresent());
      Optional<TrackedQuery.Failure> failure = query.failure();
      Instant end = query.ended().orElse(null);
      rows.add(new Object[] {
        query.id(),
        query.state().name(),
        query.principal().user(),
        query.sessionId().orElse(null),
        query.source().orElse(null),
        query.tag().orElse(null),
        query.sql(),
        micros(query.created()),
        micros(query.planned().orElse(null)),
        micros(query.started().orElse(null)),
        micros(query.firstBatch().orElse(null)),
        micros(query.lastBatch().orElse(null)),
        micros(end),
        micros(query.closed().orElse(null)),
        Duration.between(query.created(), end == null ? now : end).toMillis(),
        query.planning().toMillis(),
        query.planned().map(planned -> Duration.between(planned, query.started().orElse(end == null ? now : end)).toMillis())
            .orElse(null),
        stats.map(QueryStats::rowsReturned).orElse(null),
        stats.map(QueryStats::bytesScanned).orElse(null),
        stats.map(QueryStats::peakMemoryBytes).orElse(null),
        stats.map(QueryStats::spilledBytes).orElse(null),
        failure.map(TrackedQuery.Failure::code).orElse(null),
        failure.map(TrackedQuery.Failure::message).orElse(null)
      });
    }
    return rows;
  }

  private List<Object[]> sessionRows(Principal caller) {
    List<Object[]> rows = new ArrayList<>();
    for (ClientSession client : sessions.all()) {
      Session session = client.session();
      if (!caller.isAdmin() && !caller.user().equals(session.principal().user())) {
        continue;
      }
      rows.add(new Object[] {
        client.id(),
        session.principal().user(),
        session.catalog(),
        session.schema(),
        session.options().get(QUERY_TAG),
        micros(client.created()),
        micros(client.lastUsed())
      });
    }
    return rows;
  }
}
