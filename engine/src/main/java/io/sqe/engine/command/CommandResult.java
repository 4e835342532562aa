package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.session.Session;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * What running a statement did.
 *
 * @param rowCount rows inserted, updated or deleted; 0 for DDL and session statements
 * @param sessionChange how the statement changes the session (USE, SET), applied by the caller
 * @param report the rows of a command that reports what it did (table maintenance), as Calcite
 *     run-time values of {@link PreparedCommand#reportSchema()}; empty for the others
 * @param reuse for a statement that materializes a table (CREATE OR REPLACE TABLE ... AS),
 *     whether it reused what an earlier run of it committed and why (docs/sql.md); null for the
 *     others
 * @param offloadedTo the Trino cluster that ran the statement (an offloaded INSERT ... SELECT or
 *     CREATE TABLE ... AS, which Trino committed); null when it ran here
 */
public record CommandResult(long rowCount, UnaryOperator<Session> sessionChange, List<Object[]> report, Reuse reuse, String offloadedTo) {
  public CommandResult {
    requireNonNull(sessionChange, "sessionChange is null");
    report = List.copyOf(report);
  }

  /**
   * Whether a materialization was reused or computed again, and why.
   *
   * @param reason a short label, for metrics: {@code unchanged} when reused, else what defeated
   *     reuse ({@code input_changed}, {@code disabled}, ...)
   * @param detail the same for people, naming what changed: for audit lines and trailers
   */
  public record Reuse(boolean reused, String reason, String detail) {
    public Reuse {
      requireNonNull(reason, "reason is null");
      requireNonNull(detail, "detail is null");
    }

    public static Reuse rebuilt(String reason, String detail) {
      return new Reuse(false, reason, detail);
    }

    /**
     * What the statement did, as the {@code x-sqe-materialization} trailer says it: {@code reused},
     * {@code refreshed} (an incremental refresh of a materialized view, reason {@code
     * incremental}) or {@code rebuilt}.
     */
    public String outcome() {
      return reused ? "reused" : reason.equals("incremental") ? "refreshed" : "rebuilt";
    }
  }

  /** {@code count} rows written by a statement that materialized a table, reusing or not as {@code reuse} says. */
  public static CommandResult materialized(long count, Reuse reuse) {
    return new CommandResult(count, UnaryOperator.identity(), List.of(), requireNonNull(reuse, "reuse is null"), null);
  }

  public static CommandResult rows(long count) {
    return new CommandResult(count, UnaryOperator.identity(), List.of(), null, null);
  }

  public static CommandResult session(UnaryOperator<Session> change) {
    return new CommandResult(0, change, List.of(), null, null);
  }

  /** What a command with a {@link PreparedCommand#reportSchema() report} did: its rows, and no count. */
  public static CommandResult report(List<Object[]> rows) {
    return new CommandResult(0, UnaryOperator.identity(), rows, null, null);
  }

  /** This result, of a statement the Trino cluster at {@code uri} ran. */
  public CommandResult offloadedTo(String uri) {
    return new CommandResult(rowCount, sessionChange, report, reuse, requireNonNull(uri, "uri is null"));
  }
}
