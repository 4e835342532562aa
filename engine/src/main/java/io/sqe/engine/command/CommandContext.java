package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.session.Session;

/**
 * What a command sees while it is prepared and run: the session it runs for, the catalogs, and
 * the query engine, for the queries a statement contains (the source of an INSERT, a CTAS).
 */
public record CommandContext(Session session, Catalogs catalogs, QueryServices queries, String queryId) {
  public CommandContext {
    requireNonNull(session, "session is null");
    requireNonNull(catalogs, "catalogs is null");
    requireNonNull(queries, "queries is null");
    requireNonNull(queryId, "queryId is null");
  }
}
