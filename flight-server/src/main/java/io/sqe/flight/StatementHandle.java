package io.sqe.flight;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a ticket or prepared statement handle says, signed by the server that issued it
 * ({@link SignedHandles}): which server issued it and the id it keeps the statement under there,
 * the user it belongs to, and, when it is self-contained, everything another server needs to run
 * the statement again: its text, the session settings planning depends on, its parameter rows,
 * and the snapshot of each table a ticket's plan read.
 *
 * @param issuedAt when it was signed; a handle is redeemed until its kind's lifetime after that
 * @param scope whether another server can redeem it, and if not why
 * @param context the session settings; null unless self-contained
 * @param sql the statement's text; null unless self-contained
 * @param parameterSets the bound parameter rows; empty when none are bound
 * @param snapshots the snapshots a ticket's scans read, which another server reads too
 * @param commandCount the rows a command that already ran changed, which its ticket returns; null
 *     for a query
 */
record StatementHandle(
    Kind kind,
    Instant issuedAt,
    String issuer,
    String localId,
    String user,
    Scope scope,
    Context context,
    String sql,
    List<List<Object>> parameterSets,
    List<TableSnapshot> snapshots,
    Long commandCount) {

  /** What the handle stands for. */
  enum Kind {
    TICKET,
    PREPARED
  }

  /** Whether a server other than the issuer can redeem the handle. */
  enum Scope {
    /** Any server with the same signing keys runs it again from what the handle carries. */
    SELF_CONTAINED,
    /** It belongs to a transaction, which lives on the issuing server only. */
    TRANSACTION,
    /** It carries only its id: too large, or holding what cannot travel (a report, a running command). */
    SERVER_ONLY
  }

  /** The session settings a statement is planned and run with, besides the user. */
  record Context(
      String catalog,
      String schema,
      String timeZone,
      Duration statementTimeout,
      Map<String, String> options,
      Map<String, String> preparedStatements) {
    Context {
      requireNonNull(catalog, "catalog is null");
      requireNonNull(timeZone, "timeZone is null");
      options = Map.copyOf(options);
      preparedStatements = Map.copyOf(preparedStatements);
    }
  }

  /** A table a ticket's plan read, at snapshot {@code snapshotId}. */
  record TableSnapshot(String catalog, List<String> namespace, String table, long snapshotId) {
    TableSnapshot {
      requireNonNull(catalog, "catalog is null");
      namespace = List.copyOf(namespace);
      requireNonNull(table, "table is null");
    }
  }

  StatementHandle {
    requireNonNull(kind, "kind is null");
    requireNonNull(issuedAt, "issuedAt is null");
    requireNonNull(issuer, "issuer is null");
    requireNonNull(localId, "localId is null");
    requireNonNull(user, "user is null");
    requireNonNull(scope, "scope is null");
    parameterSets = parameterSets.stream().map(row -> java.util.Collections.unmodifiableList(new java.util.ArrayList<>(row))).toList();
    snapshots = List.copyOf(snapshots);
    if (scope == Scope.SELF_CONTAINED) {
      requireNonNull(context, "context is null");
      requireNonNull(sql, "sql is null");
    }
  }

  /** A handle that only names the statement on the server that issued it. */
  static StatementHandle local(Kind kind, Instant issuedAt, String issuer, String localId, String user, Scope scope) {
    return new StatementHandle(kind, issuedAt, issuer, localId, user, scope, null, null, List.of(), List.of(), null);
  }

  boolean selfContained() {
    return scope == Scope.SELF_CONTAINED;
  }

  /** The same handle with other parameter rows, signed anew. */
  StatementHandle withParameters(List<List<Object>> rows, Instant now) {
    return new StatementHandle(kind, now, issuer, localId, user, scope, context, sql, rows, snapshots, commandCount);
  }
}
