package io.sqe.write.files;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import java.math.BigDecimal;
import org.apache.iceberg.types.Type;

/** The errors of values a column cannot take, the same whichever way the rows reach the writer. */
public final class WriteErrors {
  private WriteErrors() {}

  public static SqeException notNull(String column) {
    return new SqeException(ErrorCode.INVALID_ARGUMENT, "NULL value for NOT NULL column " + column);
  }

  public static SqeException outOfRange(Object value, String column, Type type) {
    String text = value instanceof BigDecimal ? ((BigDecimal) value).toPlainString() : String.valueOf(value);
    return new SqeException(ErrorCode.INVALID_ARGUMENT, "Value " + text + " is out of range for column " + column + " of type " + type);
  }

  public static SqeException wrongLength(String column, Type type, int length, int actual) {
    return new SqeException(
        ErrorCode.INVALID_ARGUMENT, "Column " + column + " of type " + type + " takes " + length + " bytes, not " + actual);
  }
}
