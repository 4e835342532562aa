package io.sqe.write.ddl;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchViewException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.exceptions.ValidationException;

/** Errors of DDL statements: the SQL position of the offending name, and Iceberg's exceptions in SQE's error model. */
final class DdlErrors {
  private DdlErrors() {}

  static SqeException error(ErrorCode code, String message, SqlNode at) {
    return new SqeException(code, message, position(at), null);
  }

  static SqlPosition position(SqlNode at) {
    if (at == null) {
      return null;
    }
    SqlParserPos pos = at.getParserPosition();
    return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
  }

  /**
   * What a failed catalog call means to the user: the statement's object did not exist, already
   * existed, conflicted with a concurrent change, or asked for something Iceberg refuses.
   */
  static SqeException translate(RuntimeException e, SqlNode at) {
    if (e instanceof SqeException) {
      return (SqeException) e;
    }
    SqlPosition position = position(at);
    if (e instanceof NoSuchTableException || e instanceof NoSuchViewException || e instanceof NoSuchNamespaceException) {
      return new SqeException(ErrorCode.NOT_FOUND, e.getMessage(), position, e);
    }
    if (e instanceof AlreadyExistsException) {
      return new SqeException(ErrorCode.ALREADY_EXISTS, e.getMessage(), position, e);
    }
    if (e instanceof NamespaceNotEmptyException) {
      return new SqeException(ErrorCode.FAILED_PRECONDITION, e.getMessage(), position, e);
    }
    if (e instanceof CommitStateUnknownException) {
      // The change may have landed; only reading the catalog again can tell.
      return new SqeException(
          ErrorCode.INTERNAL, "The catalog did not say whether the change was committed; check before retrying: " + e.getMessage(), position, e);
    }
    if (e instanceof CommitFailedException) {
      return new SqeException(
          ErrorCode.FAILED_PRECONDITION, "The change conflicted with a concurrent change; retry the statement: " + e.getMessage(), position, e);
    }
    if (e instanceof ForbiddenException || e instanceof NotAuthorizedException) {
      return new SqeException(ErrorCode.PERMISSION_DENIED, e.getMessage(), position, e);
    }
    if (e instanceof ValidationException || e instanceof IllegalArgumentException || e instanceof IllegalStateException) {
      return new SqeException(ErrorCode.INVALID_ARGUMENT, e.getMessage(), position, e);
    }
    if (e instanceof UnsupportedOperationException) {
      return new SqeException(ErrorCode.NOT_SUPPORTED, e.getMessage(), position, e);
    }
    return new SqeException(ErrorCode.INTERNAL, e.getClass().getSimpleName() + ": " + e.getMessage(), position, e);
  }
}
