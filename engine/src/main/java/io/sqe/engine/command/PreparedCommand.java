package io.sqe.engine.command;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;

/** A validated statement that is not a query, ready to run. */
public interface PreparedCommand {
  /** The types of the statement's {@code ?} parameters, in order. */
  default List<RelDataType> parameterTypes() {
    return List.of();
  }

  /**
   * Whether the statement may run inside a transaction: its writes are staged there (DML, CREATE
   * TABLE ... AS) or it changes nothing stored (session statements). Other statements (DDL) commit
   * at once, so a transaction refuses them.
   */
  default boolean runsInTransaction() {
    return false;
  }

  /**
   * Runs the statement once. A failure leaves tables as they were.
   *
   * @param parameters values for the parameters, in their engine representation
   */
  CommandResult execute(CommandContext context, List<Object> parameters);
}
