package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.SqeException;
import io.sqe.write.txn.Commits;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a statement that commits on its own again when its commit loses a race with another writer,
 * up to a number of times, after a short random wait that grows with each attempt. Each attempt
 * reads the table's newest snapshot, plans, writes files of its own ({@link
 * CommandContext#attempt()} names them apart) and commits; an attempt that loses commits nothing
 * and its files are deleted before the next one starts, so a statement is applied once or not at
 * all, and its row count is that of the attempt that committed. Inside a transaction a statement
 * only stages its writes, so it runs once, and the transaction's COMMIT decides.
 */
final class ReRunOnConflict implements PreparedCommand {
  private static final Logger LOG = LoggerFactory.getLogger(ReRunOnConflict.class);
  /** The first wait's upper bound; it doubles with each attempt up to {@link #MAX_WAIT_MILLIS}. */
  private static final long FIRST_WAIT_MILLIS = 50;
  private static final long MAX_WAIT_MILLIS = 1_000;

  private final PreparedCommand command;
  private final int maxReRuns;

  private ReRunOnConflict(PreparedCommand command, int maxReRuns) {
    this.command = requireNonNull(command, "command is null");
    this.maxReRuns = maxReRuns;
  }

  /** {@code command}, run again up to {@code maxReRuns} times when it loses a commit race; itself for 0. */
  static PreparedCommand wrap(PreparedCommand command, int maxReRuns) {
    if (maxReRuns < 0) {
      throw new IllegalArgumentException("maxReRuns must not be negative: " + maxReRuns);
    }
    return maxReRuns == 0 ? command : new ReRunOnConflict(command, maxReRuns);
  }

  @Override
  public List<RelDataType> parameterTypes() {
    return command.parameterTypes();
  }

  @Override
  public Optional<Schema> reportSchema() {
    return command.reportSchema();
  }

  @Override
  public boolean runsInTransaction() {
    return command.runsInTransaction();
  }

  @Override
  public Optional<List<String>> explain(CommandContext context) {
    return command.explain(context);
  }

  @Override
  public CommandResult execute(CommandContext context, List<Object> parameters) {
    if (context.session().openTransaction().isPresent()) {
      return command.execute(context, parameters);
    }
    for (int attempt = 0; ; attempt++) {
      try {
        return command.execute(context.withAttempt(attempt), parameters);
      } catch (SqeException e) {
        if (attempt >= maxReRuns || !Commits.lostRace(e)) {
          throw e;
        }
        LOG.debug("Statement {} lost a commit race; running it again on the new snapshot ({} of {})",
            context.queryId(), attempt + 1, maxReRuns);
        if (!waitBefore(attempt + 1)) {
          throw e;
        }
      }
    }
  }

  /** Waits a random time up to a bound that doubles with each attempt; false if interrupted. */
  private static boolean waitBefore(int reRun) {
    long bound = Math.min(MAX_WAIT_MILLIS, FIRST_WAIT_MILLIS << Math.min(reRun - 1, 10));
    try {
      Thread.sleep(ThreadLocalRandom.current().nextLong(bound / 2, bound + 1));
      return true;
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return false;
    }
  }
}
