package io.sqe.write.dml;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.write.files.DataFileWriter;
import java.util.Set;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits a statement's snapshot and turns what can go wrong into errors a client can act on. Only
 * when the outcome of the commit is unknown are the statement's new data files kept, since the
 * table may already use them; otherwise they are deleted and the table is as it was.
 */
final class Commits {
  /** Snapshot summary property that names the statement which committed the snapshot. */
  static final String QUERY_ID_PROPERTY = "sqe.query-id";

  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);

  private Commits() {}

  /**
   * Runs {@code commit}; on failure deletes {@code written} (unless the outcome is unknown) and
   * throws the error to report.
   *
   * @param what the statement and its table, as messages name them: {@code "DELETE from lake.s.t"}
   */
  static void commit(Runnable commit, Table table, Set<String> written, String what, String queryId) {
    try {
      commit.run();
    } catch (CommitStateUnknownException e) {
      LOG.error("Query {}: the commit of {} has an unknown outcome; keeping {} data files", queryId, what, written.size(), e);
      throw new SqeException(
          ErrorCode.INTERNAL,
          "The outcome of the commit of " + what + " is unknown (" + e.getMessage() + "). If it landed, the table's"
              + " snapshot summary has " + QUERY_ID_PROPERTY + "=" + queryId + "; check before running the statement again",
          e);
    } catch (ValidationException e) {
      DataFileWriter.deleteFiles(table, written);
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          what + " conflicts with a change committed to the table since the statement read it, so nothing was"
              + " written; run the statement again. " + e.getMessage(),
          e);
    } catch (CommitFailedException e) {
      DataFileWriter.deleteFiles(table, written);
      throw new SqeException(
          ErrorCode.FAILED_PRECONDITION,
          "Cannot commit " + what + " because the table kept changing (" + e.getMessage() + "); nothing was written",
          e);
    } catch (AlreadyExistsException e) {
      DataFileWriter.deleteFiles(table, written);
      throw new SqeException(ErrorCode.ALREADY_EXISTS, e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      DataFileWriter.deleteFiles(table, written);
      throw e;
    }
  }
}
