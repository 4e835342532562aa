package io.sqe.engine.session;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.txn.Transaction;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a statement runs with: the principal, the default catalog and schema that unqualified
 * names resolve against, the time zone for TIMESTAMP WITH TIME ZONE values, the transaction the
 * statement belongs to (null: each statement commits on its own), how long a statement may run
 * (null: the engine's default; zero: no limit), the statements {@code PREPARE} kept, by name,
 * as their text, and the planner and execution options {@code SET} overrides, by their normalized
 * name ({@link OptionText#normalize}), as their validated text.
 */
public record Session(
    Principal principal,
    String catalog,
    String schema,
    ZoneId timeZone,
    Transaction transaction,
    Duration statementTimeout,
    Map<String, String> preparedStatements,
    Map<String, String> options) {
  public Session {
    requireNonNull(principal, "principal is null");
    requireNonNull(catalog, "catalog is null");
    requireNonNull(timeZone, "timeZone is null");
    if (statementTimeout != null && statementTimeout.isNegative()) {
      throw new IllegalArgumentException("statementTimeout is negative: " + statementTimeout);
    }
    preparedStatements = Map.copyOf(requireNonNull(preparedStatements, "preparedStatements is null"));
    options = Map.copyOf(requireNonNull(options, "options is null"));
  }

  public Session(
      Principal principal,
      String catalog,
      String schema,
      ZoneId timeZone,
      Transaction transaction,
      Duration statementTimeout,
      Map<String, String> preparedStatements) {
    this(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, Map.of());
  }

  public Session(Principal principal, String catalog, String schema, ZoneId timeZone, Transaction transaction, Duration statementTimeout) {
    this(principal, catalog, schema, timeZone, transaction, statementTimeout, Map.of(), Map.of());
  }

  public Session(Principal principal, String catalog, String schema, ZoneId timeZone, Transaction transaction) {
    this(principal, catalog, schema, timeZone, transaction, null);
  }

  /** A session outside any transaction. */
  public Session(Principal principal, String catalog, String schema, ZoneId timeZone) {
    this(principal, catalog, schema, timeZone, null, null);
  }

  public Optional<String> schemaName() {
    return Optional.ofNullable(schema);
  }

  /** The transaction statements join, unless it has ended (a failed COMMIT ends it too). */
  public Optional<Transaction> openTransaction() {
    return Optional.ofNullable(transaction).filter(Transaction::isOpen);
  }

  public Session withCatalog(String catalog) {
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, options);
  }

  public Session withSchema(String schema) {
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, options);
  }

  public Session withTimeZone(ZoneId timeZone) {
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, options);
  }

  public Session withTransaction(Transaction transaction) {
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, options);
  }

  /** @param timeout how long each statement may run; null for the engine's default, zero for no limit */
  public Session withStatementTimeout(Duration timeout) {
    return new Session(principal, catalog, schema, timeZone, transaction, timeout, preparedStatements, options);
  }

  /** The session with {@code sql} kept as the prepared statement {@code name}, replacing one of that name. */
  public Session withPreparedStatement(String name, String sql) {
    Map<String, String> statements = new LinkedHashMap<>(preparedStatements);
    statements.put(requireNonNull(name, "name is null"), requireNonNull(sql, "sql is null"));
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, statements, options);
  }

  /** The session without the prepared statement {@code name}. */
  public Session withoutPreparedStatement(String name) {
    Map<String, String> statements = new LinkedHashMap<>(preparedStatements);
    statements.remove(name);
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, statements, options);
  }

  /**
   * The session with option {@code name} (normalized) set to {@code value}, which the engine
   * validated; a null {@code value} returns the option to the server's setting.
   */
  public Session withOption(String name, String value) {
    Map<String, String> changed = new LinkedHashMap<>(options);
    if (value == null) {
      changed.remove(name);
    } else {
      changed.put(requireNonNull(name, "name is null"), value);
    }
    return new Session(principal, catalog, schema, timeZone, transaction, statementTimeout, preparedStatements, changed);
  }
}
