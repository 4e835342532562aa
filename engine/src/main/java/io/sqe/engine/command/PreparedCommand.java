package io.sqe.engine.command;

import java.util.List;
import java.util.Optional;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;

/** A validated statement that is not a query, ready to run. */
public interface PreparedCommand {
  /** The types of the statement's {@code ?} parameters, in order. */
  default List<RelDataType> parameterTypes() {
    return List.of();
  }

  /**
   * The schema of the rows the command reports ({@link CommandResult#report()}), for commands that
   * tell more than a count of changed rows (table maintenance); empty for the others.
   */
  default Optional<Schema> reportSchema() {
    return Optional.empty();
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
   * What EXPLAIN shows of the statement, a line per row, without running it: what it writes,
   * where it runs and the plan of the query it reads; empty for a statement EXPLAIN does not take.
   */
  default Optional<List<String>> explain(CommandContext context) {
    return Optional.empty();
  }

  /**
   * Runs the statement once. A failure leaves tables as they were.
   *
   * @param parameters values for the parameters, in their engine representation
   */
  CommandResult execute(CommandContext context, List<Object> parameters);
}
