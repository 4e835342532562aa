package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.Catalogs;
import io.sqe.engine.session.Session;

/**
 * What a command sees while it is prepared and run: the session it runs for, the catalogs, the
 * query engine, for the queries a statement contains (the source of an INSERT, a CTAS), and which
 * attempt of the statement this is.
 *
 * @param attempt 0 for a statement's first attempt; 1, 2, ... when the statement runs again after
 *     its commit lost a race with another writer, so that each attempt names its files apart
 */
public record CommandContext(Session session, Catalogs catalogs, QueryServices queries, String queryId, int attempt) {
  public CommandContext {
    requireNonNull(session, "session is null");
    requireNonNull(catalogs, "catalogs is null");
    requireNonNull(queries, "queries is null");
    requireNonNull(queryId, "queryId is null");
    if (attempt < 0) {
      throw new IllegalArgumentException("attempt must not be negative: " + attempt);
    }
  }

  /** A statement's first attempt. */
  public CommandContext(Session session, Catalogs catalogs, QueryServices queries, String queryId) {
    this(session, catalogs, queries, queryId, 0);
  }

  /** This context for the given attempt of the statement. */
  public CommandContext withAttempt(int next) {
    return new CommandContext(session, catalogs, queries, queryId, next);
  }
}
