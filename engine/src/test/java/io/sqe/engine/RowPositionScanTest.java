package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.command.QueryServices;
import io.sqe.engine.exec.BatchStream;
import io.sqe.engine.exec.RowStream;
import io.sqe.engine.iceberg.IcebergTable;
import io.sqe.engine.plan.PlannedQuery;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeParser;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
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
 * The scan of a row-level write's target on the columnar operators returns each row's data file
 * and its position in that file, with and without filters that drop rows on the vectors and skip
 * row groups, and for files read as rows (delete files): checked against the positions of the rows
 * as this test wrote them, as batches, as the rows a row-level write reads from those batches, and
 * on the row runtime.
 */
class RowPositionScanTest {
  private static final int FILES = 3;
  private static final int ROWS_PER_FILE = 3000;
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "i", Types.IntegerType.get()),
          Types.NestedField.optional(3, "label", Types.StringType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private final Session session = EmbeddedLake.session("test");
  /** The engine's query services, as the write path's commands get them. */
  private QueryServices queries;
  private Table table;
  /** Per file written, its path and its rows in the order written: a row's position is its index. */
  private final List<String> paths = new ArrayList<>();
  private final List<List<Object[]>> written = new ArrayList<>();

  @BeforeEach
  void setUp() {
    queries = lake.queryServices(session);
    // Row groups of a few hundred rows: each file holds several, and filters skip some of them.
    table = lake.catalog().iceberg().createTable(
        TableIdentifier.of("s", "pos"),
        SCHEMA,
        PartitionSpec.unpartitioned(),
        Map.of(
            "format-version", "2",
            "write.parquet.row-group-size-bytes", "4096",
            "write.parquet.row-group-check-min-record-count", "50",
            "write.parquet.row-group-check-max-record-count", "100"));
    for (int file = 0; file < FILES; file++) {
      List<Record> records = new ArrayList<>();
      List<Object[]> rows = new ArrayList<>();
      for (int r = 0; r < ROWS_PER_FILE; r++) {
        long id = (long) file * ROWS_PER_FILE + r;
        Integer i = r % 11 == 5 ? null : (int) (id * 37 % 101) - 50;
        String label = "l-" + id;
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("id", id);
        record.setField("i", i);
        record.setField("label", label);
        records.add(record);
        rows.add(new Object[] {id, i, label});
      }
      DataFile data = TestTables.appendFile(table, records);
      assertThat(data.splitOffsets()).as("row groups of a file").hasSizeGreaterThan(3);
      paths.add(data.location());
      written.add(rows);
    }
  }

  @Test
  void positionsAreThoseOfTheRowsInTheirFiles() {
    assertSameRows("", row -> true, FILES);
    assertSameRows("where i > 0", row -> row[1] != null && (Integer) row[1] > 0, FILES);
    // The first file is skipped, and the others' row groups outside the range: positions stay the file's.
    assertSameRows("where id between 3700 and 4100 or id = 8999", row -> {
      long id = (Long) row[0];
      return id >= 3700 && id <= 4100 || id == 8999;
    }, FILES - 1);
    // Only the first file's labels can start so.
    assertSameRows("where label like 'l-2%' and i is null", row -> ((String) row[2]).startsWith("l-2") && row[1] == null, 1);
  }

  @Test
  void aFileWithDeletesIsReadAsRowsWithItsPositions() {
    // The last file appended, whose rows 0, 7 and 2999 are deleted.
    TestTables.deletePositions(table, table.currentSnapshot().addedDataFiles(table.io()).iterator().next(), 0, 7, 2999);
    Predicate<Object[]> kept = row -> {
      long id = (Long) row[0];
      return id / ROWS_PER_FILE != FILES - 1 || !List.of(0L, 7L, 2999L).contains(id % ROWS_PER_FILE);
    };
    assertSameRows("where i <> 3", row -> kept.test(row) && row[1] != null && (Integer) row[1] != 3, FILES - 1);
  }

  /**
   * Runs {@code select $file, $pos, id, i, label from pos <where>} over the table as a write target
   * reads it, on the columnar operators and on the row runtime, and asserts the rows written that
   * {@code expected} keeps, each with its file and position; {@code filesByColumns} files are read
   * by the vectorized reader.
   */
  private void assertSameRows(String where, Predicate<Object[]> expected, int filesByColumns) {
    IcebergTable target = IcebergTable.forRowLevelWrite(lake.catalog(), TableIdentifier.of("s", "pos"), lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "pos")));
    String sql = "select \"" + target.fileColumnName() + "\", \"" + target.positionColumnName() + "\", id, i, label from pos " + where;
    PlannedQuery planned = queries.plan(session, SqeParser.parse(sql), sql, List.of(target));
    assertThat(planned.explain()).as(sql).contains("SqeTableScan").doesNotContain("Enumerable");
    // The write learns which rows it read when the statement is planned, though no code is compiled.
    assertThat(target.scannedRows().op()).as(sql).isNotEqualTo(org.apache.iceberg.expressions.Expression.Operation.FALSE);

    List<List<Object>> want = new ArrayList<>();
    for (int file = 0; file < FILES; file++) {
      List<Object[]> rows = written.get(file);
      for (int position = 0; position < rows.size(); position++) {
        Object[] row = rows.get(position);
        if (expected.test(row)) {
          want.add(Arrays.asList(paths.get(file), (long) position, row[0], row[1], row[2]));
        }
      }
    }
    assertThat(want).as(sql).isNotEmpty();

    List<List<Object>> columnar = new ArrayList<>();
    BatchStream batches = queries.batches(session, planned, List.of(), "columnar");
    try {
      for (VectorSchemaRoot batch = batches.next(); batch != null; batch = batches.next()) {
        for (int r = 0; r < batch.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : batch.getFieldVectors()) {
            Object value = vector.getObject(r);
            row.add(value == null || value instanceof Number ? value : value.toString());
          }
          columnar.add(row);
        }
        batch.close();
      }
      assertThat(batches.context().stats().filesReadByColumns()).as(sql).isEqualTo(filesByColumns);
    } finally {
      batches.close();
    }
    assertThat(TestQueries.sorted(columnar)).as(sql).isEqualTo(TestQueries.sorted(want));

    // What a row-level write reads: the columnar plan's rows, in the row runtime's representation.
    List<List<Object>> columnarRows = new ArrayList<>();
    try (RowStream rows = queries.rows(session, planned, List.of(), "columnar-rows")) {
      while (rows.next()) {
        columnarRows.add(Arrays.asList(rows.current()));
      }
      assertThat(rows.context().stats().filesReadByColumns()).as(sql).isEqualTo(filesByColumns);
    }
    assertThat(TestQueries.sorted(columnarRows)).as(sql).isEqualTo(TestQueries.sorted(want));

    Session rowSession = TestOptions.set(session, PlannerOptions.COLUMNAR, false);
    PlannedQuery rowPlan = queries.plan(rowSession, SqeParser.parse(sql), sql, List.of(target));
    assertThat(rowPlan.batchPlan()).isNull();
    List<List<Object>> rowRuntime = new ArrayList<>();
    try (RowStream rows = queries.rows(rowSession, rowPlan, List.of(), "rows")) {
      while (rows.next()) {
        rowRuntime.add(Arrays.asList(rows.current()));
      }
    }
    assertThat(TestQueries.sorted(rowRuntime)).as(sql).isEqualTo(TestQueries.sorted(want));
  }
}
