package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.TestQueries.Result;
import io.sqe.engine.iceberg.parquet.ParquetFooters;
import io.sqe.engine.session.Session;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Parquet files read column by column return the same rows as Iceberg's generic row reader: every
 * type the vectorized path converts, with nulls, dictionary-encoded and plain pages in one column,
 * batches of 4,096 rows, identity-partition constants and columns added after a file was written.
 */
class VectorizedScanTest {
  private static final int ROWS = 6000;

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void everyConvertedTypeMatchesTheRowReader() {
    // A small dictionary limit: the label column's pages start dictionary-encoded and fall back to plain.
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", "typed"), TypedRows.SCHEMA, PartitionSpec.unpartitioned(), Map.of("write.parquet.dict-size-bytes", "4096"));
    List<Record> records = new ArrayList<>();
    for (int n = 0; n < ROWS; n++) {
      records.add(TypedRows.row(n));
    }
    TestTables.appendFile(table, records);

    String columns = TypedRows.DECODED_COLUMNS;
    Result vectorized = run("select " + columns + " from typed order by id");
    // A TIME column is not converted column by column, so this scan reads the file row by row.
    Result rows = run("select " + columns + ", clock from typed order by id");
    assertThat(vectorized.stats().filesReadByColumns()).isEqualTo(1);
    assertThat(rows.stats().filesReadByColumns()).isZero();
    assertThat(vectorized.rows()).hasSize(ROWS);
    for (int n = 0; n < ROWS; n++) {
      assertThat(vectorized.rows().get(n)).as("row %d", n).isEqualTo(rows.rows().get(n).subList(0, 16));
    }
    assertThat(vectorized.rows().get(5).subList(0, 9))
        .isEqualTo(List.of(5L, false, -2995, 5_000_000_035L, 0.625f, 5 / 3.0, "red", "label-é-5", new BigDecimal("-493.15")));
    assertThat(vectorized.rows().get(3).subList(1, 16)).containsOnlyNulls();

    // The pushed filter only prunes; the Filter above the scan drops the rows.
    long expected = records.stream().filter(r -> r.getField("i") != null && (Integer) r.getField("i") < -2000).count();
    Result filtered = run("select count(*), sum(amount) from typed where i < -2000");
    assertThat(filtered.stats().filesReadByColumns()).isEqualTo(1);
    assertThat(filtered.rows().get(0).get(0)).isEqualTo(expected);
    BigDecimal sum =
        records.stream()
            .filter(r -> r.getField("i") != null && (Integer) r.getField("i") < -2000)
            .map(r -> (BigDecimal) r.getField("amount"))
            .reduce(BigDecimal.ZERO, BigDecimal::add);
    assertThat(filtered.rows().get(0).get(1)).isEqualTo(sum);
  }

  @Test
  void partitionConstantsColumnsAddedLaterAndPromotedTypes() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "region", Types.StringType.get()),
            Types.NestedField.required(2, "v", Types.IntegerType.get()));
    Table table =
        lake.catalog().iceberg().createTable(TableIdentifier.of("s", "parts"), schema, PartitionSpec.builderFor(schema).identity("region").build());
    for (String region : List.of("eu", "us")) {
      List<Record> records = new ArrayList<>();
      for (int v = 0; v < 10; v++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("region", region);
        r.setField("v", v + (region.equals("eu") ? 0 : 100));
        records.add(r);
      }
      TestTables.appendPartitionFile(table, records, region);
    }
    // v becomes a long: the files written before hold it as a Parquet INT32, which the row reader widens.
    table.updateSchema().addColumn("note", Types.StringType.get()).updateColumn("v", Types.LongType.get()).commit();
    Schema evolved = table.schema();
    GenericRecord late = GenericRecord.create(evolved);
    late.setField("region", "eu");
    late.setField("v", 50L);
    late.setField("note", "late");
    TestTables.appendPartitionFile(table, List.of(late), "eu");

    Result result = run("select region, v, note from parts where v in (3, 50, 103) order by v");
    assertThat(result.rows())
        .isEqualTo(List.of(java.util.Arrays.asList("eu", 3L, null), List.of("eu", 50L, "late"), java.util.Arrays.asList("us", 103L, null)));
    assertThat(result.stats().filesScanned()).isEqualTo(3);
    assertThat(result.stats().filesReadByColumns()).isEqualTo(1);
  }

  @Test
  void rowGroupsBetweenMatchingOnesAreSkippedAndPromotedColumnsStillReadRowByRow() {
    Schema schema = new Schema(Types.NestedField.required(1, "v", Types.IntegerType.get()));
    // Small row groups: the filter below keeps the first and the last few, and skips those between.
    Table table =
        lake.catalog()
            .iceberg()
            .createTable(
                TableIdentifier.of("s", "grouped"),
                schema,
                PartitionSpec.unpartitioned(),
                Map.of("write.parquet.row-group-size-bytes", "4096", "write.parquet.page-size-bytes", "1024", "write.parquet.row-group-check-min-record-count", "100", "write.parquet.row-group-check-max-record-count", "100"));
    List<Record> records = new ArrayList<>();
    for (int v = 0; v < 20_000; v++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("v", v);
      records.add(r);
    }
    DataFile file = TestTables.appendFile(table, records);
    org.apache.iceberg.expressions.Expression filter =
        Expressions.or(Expressions.lessThan("v", 500), Expressions.greaterThanOrEqual("v", 19_500));
    ParquetFooters.RowGroups chosen = ParquetFooters.rowGroups(table.io().newInputFile(file), 0, file.fileSizeInBytes(), schema, filter);
    int[] indexes = chosen.indexes();
    int all = chosen.footer().getBlocks().size();
    assertThat(indexes).as("the first and the last row groups").isNotEmpty().contains(0, all - 1);
    long gaps = java.util.stream.IntStream.range(1, indexes.length).filter(i -> indexes[i] != indexes[i - 1] + 1).count();
    assertThat(gaps).as("one gap: the row groups between skipped").isEqualTo(1);

    String sql = "select count(*), sum(cast(v as bigint)) from grouped where v < 500 or v >= 19500";
    long sum = 0;
    for (int v = 0; v < 20_000; v++) {
      sum += v < 500 || v >= 19_500 ? v : 0;
    }
    Result vectors = run(sql);
    assertThat(vectors.rows()).isEqualTo(List.of(List.of(1000L, sum)));
    assertThat(vectors.stats().filesReadByColumns()).isEqualTo(1);

    // v becomes a long: the file holds an INT32, which only the row reader widens.
    table.updateSchema().updateColumn("v", Types.LongType.get()).commit();
    lake.catalog().invalidate(TableIdentifier.of("s", "grouped"));
    Result rows = run(sql);
    assertThat(rows.rows()).isEqualTo(List.of(List.of(1000L, sum)));
    assertThat(rows.stats().filesReadByColumns()).isZero();
  }

  @Test
  void filesWithDeleteFilesAreReadRowByRowWithTheirDeletesApplied() {
    Schema schema =
        new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "name", Types.StringType.get()));
    Table table = lake.catalog().iceberg().createTable(TableIdentifier.of("s", "deleted"), schema, PartitionSpec.unpartitioned(), Map.of("format-version", "2"));
    List<DataFile> files = new ArrayList<>();
    for (int file = 0; file < 3; file++) {
      List<Record> records = new ArrayList<>();
      for (long id = file * 100L; id < file * 100L + 100; id++) {
        GenericRecord r = GenericRecord.create(schema);
        r.setField("id", id);
        r.setField("name", "n" + id);
        records.add(r);
      }
      files.add(TestTables.appendFile(table, records));
    }
    // Positions 0-9 of the first file, then ids 150 and 151 by equality: both apply to the files written before them.
    TestTables.deletePositions(table, files.get(0), 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
    TestTables.deleteWhereEquals(table, "id", List.of(150L, 151L));
    // A file written after the deletes has none to apply, and is read column by column.
    List<Record> late = new ArrayList<>();
    for (long id = 1000; id < 1010; id++) {
      GenericRecord r = GenericRecord.create(schema);
      r.setField("id", id);
      r.setField("name", "n" + id);
      late.add(r);
    }
    TestTables.appendFile(table, late);

    long expectedSum = 0;
    for (long id = 10; id < 300; id++) {
      expectedSum += id == 150 || id == 151 ? 0 : id;
    }
    for (long id = 1000; id < 1010; id++) {
      expectedSum += id;
    }
    Result all = run("select count(*), sum(id) from deleted");
    assertThat(all.rows()).isEqualTo(List.of(List.of(298L, expectedSum)));
    Result some = run("select id, name from deleted where id < 12 or id between 149 and 152 or id = 1005 order by id");
    assertThat(some.rows())
        .isEqualTo(List.of(List.of(10L, "n10"), List.of(11L, "n11"), List.of(149L, "n149"), List.of(152L, "n152"), List.of(1005L, "n1005")));
    // The third file (ids 200-299) is pruned by its column bounds; the first two carry deletes.
    assertThat(some.stats().filesScanned()).isEqualTo(3);
    assertThat(some.stats().filesReadByColumns()).isEqualTo(1);
  }

  private Result run(String sql) {
    return TestQueries.run(engine, session, sql);
  }
}
