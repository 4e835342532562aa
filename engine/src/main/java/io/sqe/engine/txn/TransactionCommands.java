package io.sqe.engine.txn;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.ddl.SqlTransactionStatement;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code BEGIN} / {@code START TRANSACTION}, {@code COMMIT} and {@code ROLLBACK}: the session's
 * transaction as SQL clients (ADBC, dbt) drive it. BEGIN inside a transaction is an error;
 * COMMIT and ROLLBACK outside one do nothing, as in PostgreSQL, since clients send them
 * defensively.
 */
public final class TransactionCommands implements CommandExecutor {
  private final Transactions transactions;

  /** @param transactions how to begin one; null when the server has no write path */
  public TransactionCommands(Transactions transactions) {
    this.transactions = transactions;
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (!(statement instanceof SqlTransactionStatement)) {
      return Optional.empty();
    }
    SqlTransactionStatement transaction = (SqlTransactionStatement) statement;
    switch (transaction.action()) {
      case BEGIN:
        if (transactions == null) {
          throw new SqeException(ErrorCode.NOT_SUPPORTED, "This server does not run transactions");
        }
        checkModes(transaction.modes());
        return Optional.of(new TransactionCommand(this::begin));
      case COMMIT:
        return Optional.of(new TransactionCommand(TransactionCommands::commit));
      default:
        return Optional.of(new TransactionCommand(TransactionCommands::rollback));
    }
  }

  /**
   * Refuses what SQE's transactions do not give rather than promise it: they read what others
   * committed, and their own writes commit only if nothing they changed was changed meanwhile,
   * which is READ COMMITTED (and so READ UNCOMMITTED too), and they may write.
   */
  private static void checkModes(List<String> modes) {
    for (String mode : modes) {
      switch (mode) {
        case "READ UNCOMMITTED":
        case "READ COMMITTED":
        case "READ WRITE":
          break;
        case "READ ONLY":
          throw new SqeException(ErrorCode.NOT_SUPPORTED, "READ ONLY transactions are not supported; start a READ WRITE transaction");
        default:
          throw new SqeException(
              ErrorCode.NOT_SUPPORTED, "Isolation level " + mode + " is not supported: SQE's transactions are READ COMMITTED");
      }
    }
  }

  private UnaryOperator<Session> begin(CommandContext context) {
    Session session = context.session();
    if (session.openTransaction().isPresent()) {
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION, "A transaction is already open in this session; COMMIT or ROLLBACK it first");
    }
    Transaction transaction = transactions.begin(session.principal());
    return s -> s.withTransaction(transaction);
  }

  private static UnaryOperator<Session> commit(CommandContext context) {
    Optional<Transaction> transaction = context.session().openTransaction();
    transaction.ifPresent(Transaction::commit);
    return end(transaction);
  }

  private static UnaryOperator<Session> rollback(CommandContext context) {
    Optional<Transaction> transaction = context.session().openTransaction();
    transaction.ifPresent(Transaction::rollback);
    return end(transaction);
  }

  /** Leaves the transaction that ended, and only that one: a session may since have begun another. */
  private static UnaryOperator<Session> end(Optional<Transaction> ended) {
    return s -> ended.isPresent() && s.transaction() == ended.get() ? s.withTransaction(null) : s;
  }

  /** One of the three statements, run when executed, not when prepared. */
  private static final class TransactionCommand implements PreparedCommand {
    private final Function<CommandContext, UnaryOperator<Session>> action;

    TransactionCommand(Function<CommandContext, UnaryOperator<Session>> action) {
      this.action = action;
    }

    @Override
    public boolean runsInTransaction() {
      return true;
    }

    @Override
    public CommandResult execute(CommandContext context, List<Object> parameters) {
      return CommandResult.session(action.apply(context));
    }
  }
}
