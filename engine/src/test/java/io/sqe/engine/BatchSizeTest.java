package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Session;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Record batches stay near the configured byte size, whatever the width of the rows. */
class BatchSizeTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.required(2, "text", Types.StringType.get()),
          Types.NestedField.optional(3, "words", Types.ListType.ofRequired(4, Types.StringType.get())));
  private static final int ROWS = 5_000;
  private static final int TEXT_LENGTH = 500;
  private static final long BATCH_BYTES = 256 * 1024;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "wide"), SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("text", "x".repeat(TEXT_LENGTH));
      r.setField("words", List.of("w".repeat(TEXT_LENGTH / 2), "v".repeat(TEXT_LENGTH / 2)));
      rows.add(r);
    }
    TestTables.appendFile(table, rows);
    engine = lake.engine(new EngineConfig(1L << 30, 65_536, BATCH_BYTES));
    session = EmbeddedLake.session("test");
  }

  @Test
  void smallResultsFitASmallMemoryLimit() {
    QueryEngine small =
        lake.engine(new EngineConfig(64 * 1024, 65_536, BATCH_BYTES));
    // The result batches of the row runtime start small. A columnar plan's memory also holds the
    // scan's decoded batches (thousands of rows), which a 64 KiB limit could not.
    Session rowRuntime = TestOptions.set(session, io.sqe.engine.plan.PlannerOptions.COLUMNAR, false);
    Prepared prepared = small.prepare(rowRuntime, "select id, text, 'a' as a, 'b' as b, words from wide where id < 3");
    long rows = 0;
    try (QueryExecution execution = small.execute(rowRuntime, prepared, List.of(), "small")) {
      while (execution.next()) {
        rows += execution.root().getRowCount();
      }
    }
    assertThat(rows).isEqualTo(3);
  }

  @Test
  void aColumnarScanOfAFewRowsFitsASmallMemoryLimit() {
    Table few = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "few"), SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 3; id++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", id);
      r.setField("text", "x".repeat(TEXT_LENGTH));
      rows.add(r);
    }
    TestTables.appendFile(few, rows);
    QueryEngine small = lake.engine(new EngineConfig(64 * 1024, 65_536, BATCH_BYTES));
    // The scan's vectors are sized for the rows its row groups hold, not for a full batch.
    Prepared prepared = small.prepare(session, "select id, text, 'a' as a from few");
    assertThat(TestQueries.plan(small, session, "select id, text, 'a' as a from few")).contains("SqeTableScan").doesNotContain("Enumerable");
    long read = 0;
    try (QueryExecution execution = small.execute(session, prepared, List.of(), "few")) {
      while (execution.next()) {
        read += execution.root().getRowCount();
      }
    }
    assertThat(read).isEqualTo(3);
  }

  @Test
  void batchesOfWideRowsStayNearTheByteLimit() {
    // A row here is about 1 KB, so 256 rows (how often the size is checked) are about 256 KB.
    long slack = 256L * 2 * TEXT_LENGTH + 64 * 1024;
    Prepared prepared = engine.prepare(session, "select id, text, words from wide");
    long rows = 0;
    int batches = 0;
    try (QueryExecution execution = engine.execute(session, prepared, List.of(), "batch-size")) {
      while (execution.next()) {
        long bytes = 0;
        for (FieldVector vector : execution.root().getFieldVectors()) {
          bytes += vector.getBufferSize();
        }
        assertThat(bytes).as("bytes in batch %d", batches).isLessThanOrEqualTo(BATCH_BYTES + slack);
        rows += execution.root().getRowCount();
        batches++;
      }
    }
    assertThat(rows).isEqualTo(ROWS);
    assertThat(batches).isGreaterThan(1);
  }
}
