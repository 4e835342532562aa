package io.sqe.engine.command;

import io.sqe.engine.session.OptionText;
import io.sqe.engine.session.Session;
import java.util.Set;

/**
 * Options of the statements that write tables: set for the server in {@code sqe.yaml} and
 * overridden per session with {@code SET}, as the planner and execution options are.
 */
public final class WriteOptions {
  /**
   * Whether a CREATE [OR REPLACE] TABLE ... AS whose inputs did not change since the table's
   * current snapshot was committed by the same statement commits nothing (docs/sql.md).
   */
  public static final String MATERIALIZATION_REUSE = "materialization-reuse";
  /** The options' names, as {@code sqe.yaml} and {@code SET} write them (normalized). */
  public static final Set<String> NAMES = Set.of(MATERIALIZATION_REUSE);

  private WriteOptions() {}

  /** Fails with INVALID_ARGUMENT unless {@code value} is one option {@code name} takes. */
  public static void validate(String name, String value) {
    OptionText.bool(name, value);
  }

  /** Whether {@code session} reuses materializations: its own setting, else the server's {@code serverDefault}. */
  public static boolean materializationReuse(Session session, boolean serverDefault) {
    String value = session.options().get(MATERIALIZATION_REUSE);
    return value == null ? serverDefault : OptionText.bool(MATERIALIZATION_REUSE, value);
  }
}
