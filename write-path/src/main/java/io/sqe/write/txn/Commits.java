package io.sqe.write.txn;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a statement's or a transaction's changes and turns what can go wrong into errors a client
 * can act on. Only when the outcome of the commit is unknown are the new files kept, since a table
 * may already use them; otherwise they are discarded and the tables are as they were.
 */
public final class Commits {
  /** Snapshot summary property that names the statement which committed the snapshot. */
  public static final String QUERY_ID_PROPERTY = "sqe.query-id";
  /** Snapshot summary property that names the transaction a snapshot was committed in. */
  public static final String TRANSACTION_ID_PROPERTY = "sqe.transaction-id";

  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);

  private Commits() {}

  /**
   * Whether {@code error} is what {@link #commit} throws when the commit lost a race with another
   * writer (a conflicting change, or the catalog refusing a commit based on an old snapshot): the
   * commit did not happen and its files are gone, so the statement may run again on the new
   * snapshot. An unknown outcome is not one.
   */
  public static boolean lostRace(Throwable error) {
    return error instanceof SqeException
        && ((SqeException) error).code() == ErrorCode.FAILED_PRECONDITION
        && (error.getCause() instanceof ValidationException || error.getCause() instanceof CommitFailedException);
  }

  /**
   * Runs {@code commit}; on failure runs {@code discard} (unless the outcome is unknown) and throws
   * the error to report.
   *
   * @param what what commits, as messages name it: {@code "DELETE from lake.s.t"}
   * @param marker the snapshot summary entry that shows the commit landed: {@code "sqe.query-id=..."}
   */
  public static void commit(Runnable commit, Runnable discard, String what, String marker) {
    try {
      commit.run();
    } catch (CommitStateUnknownException e) {
      LOG.error("The commit of {} ({}) has an unknown outcome; keeping its files", what, marker, e);
      throw new SqeException(
          ErrorCode.INTERNAL,
          "The outcome of the commit of " + what + " is unknown (" + e.getMessage() + "). If it landed, the table's"
              + " snapshot summary has " + marker + "; check before running it again",
          e);
    } catch (ValidationException e) {
      discard.run();
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          what + " conflicts with a change committed to the table since it was read, so nothing was"
              + " written; run it again. " + e.getMessage(),
          e);
    } catch (CommitFailedException e) {
      discard.run();
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "Cannot commit " + what + " because the table changed meanwhile (" + e.getMessage() + "); nothing was"
              + " written; run it again",
          e);
    } catch (AlreadyExistsException e) {
      discard.run();
      throw new SqeException(ErrorCode.ALREADY_EXISTS, e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      discard.run();
      throw e;
    }
  }
}
