package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Text that is not a valid value of the type an operation needs (a timestamp, a date, a number)
 * is the statement's error, INVALID_ARGUMENT, whether the planner meets it while folding a
 * literal or a running query meets it in a row: not an internal error or "cannot be planned".
 */
class InvalidValueErrorsTest {
  private static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "txt", Types.StringType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "t"), SCHEMA);
    Record row = GenericRecord.create(SCHEMA);
    row.setField("txt", "abc");
    TestTables.appendFile(table, List.of(row));
    engine = lake.engine();
    session = EmbeddedLake.session("t");
  }

  @Test
  void aLiteralThatIsNotATimestampIsInvalidArgumentAtPlanning() {
    assertThatThrownBy(() -> engine.prepare(session, "select to_char('abc', 'b')"))
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
          assertThat(e.getMessage()).contains("abc");
        });
    assertThat(engine.prepare(session, "select to_char(timestamp '2024-01-02 03:04:05', 'YYYY')")).isNotNull();
  }

  @Test
  void aRowThatIsNotADateOrANumberIsInvalidArgumentWhenItRuns() {
    for (String sql : List.of("select cast(txt as date) from t", "select cast(txt as timestamp) from t", "select cast(txt as integer) from t")) {
      assertThatThrownBy(() -> {
            try (QueryExecution exec = engine.execute(session, engine.prepare(session, sql), List.of(), "q")) {
              while (exec.next()) {
                // drain
              }
            }
          })
          .as(sql)
          .isInstanceOfSatisfying(SqeException.class, e -> {
            assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
            assertThat(e.getMessage()).contains("abc");
          });
    }
  }

  @Test
  void aDivisionByZeroThrownWithoutAMessageIsStillNamed() {
    // What the JIT throws from hot code after many divisions by zero (OmitStackTraceInFastThrow):
    // the same exception, preallocated, without its message.
    SqeException e = io.sqe.engine.exec.ExecutionErrors.invalidValue(new ArithmeticException()).orElseThrow();
    assertThat(e.code()).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(e.getMessage()).isEqualTo("Division by zero");
  }
}
