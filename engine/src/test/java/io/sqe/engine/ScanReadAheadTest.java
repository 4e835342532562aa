package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.Catalogs;
import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Scans that read their files ahead on background threads return the same rows, in file order. */
class ScanReadAheadTest {
  private static final Schema FACT =
      new Schema(
          Types.NestedField.required(1, "f_id", Types.LongType.get()),
          Types.NestedField.required(2, "f_big", Types.LongType.get()),
          Types.NestedField.required(3, "f_small", Types.IntegerType.get()),
          Types.NestedField.required(4, "f_value", Types.LongType.get()));
  private static final Schema BIG =
      new Schema(
          Types.NestedField.required(1, "b_key", Types.LongType.get()),
          Types.NestedField.required(2, "b_name", Types.StringType.get()));
  private static final Schema SMALL =
      new Schema(
          Types.NestedField.required(1, "s_key", Types.IntegerType.get()),
          Types.NestedField.required(2, "s_name", Types.StringType.get()));

  @TempDir Path dir;
  private RootAllocator allocator;
  private LakehouseCatalog catalog;
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    allocator = new RootAllocator();
    catalog = IcebergCatalogFactory.embedded("lake", dir.resolve("warehouse"), Duration.ofSeconds(5));
    catalog.namespaces().createNamespace(Namespace.of("s"));
    Table fact = catalog.iceberg().createTable(TableIdentifier.of("s", "fact"), FACT);
    for (int file = 0; file < 2; file++) {
      List<Record> rows = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        long id = file * 3000L + i;
        Record r = GenericRecord.create(FACT);
        r.setField("f_id", id);
        r.setField("f_big", id % 200);
        r.setField("f_small", (int) (id % 10));
        r.setField("f_value", id);
        rows.add(r);
      }
      TestTables.appendFile(fact, rows);
    }
    Table big = catalog.iceberg().createTable(TableIdentifier.of("s", "big"), BIG);
    List<Record> bigRows = new ArrayList<>();
    for (long k = 0; k < 200; k++) {
      Record r = GenericRecord.create(BIG);
      r.setField("b_key", k);
      r.setField("b_name", k % 4 == 0 ? "green " + k : "red " + k);
      bigRows.add(r);
    }
    TestTables.appendFile(big, bigRows);
    Table small = catalog.iceberg().createTable(TableIdentifier.of("s", "small"), SMALL);
    List<Record> smallRows = new ArrayList<>();
    for (int k = 0; k < 10; k++) {
      Record r = GenericRecord.create(SMALL);
      r.setField("s_key", k);
      r.setField("s_name", "n" + k);
      smallRows.add(r);
    }
    TestTables.appendFile(small, smallRows);
    engine = new QueryEngine(new Catalogs(List.of(catalog), "lake"), allocator, EngineConfig.DEFAULT);
    session = new Session(Principal.of("test"), "lake", "s", ZoneOffset.UTC);
  }

  @AfterEach
  void tearDown() throws Exception {
    catalog.close();
    allocator.close();
  }

  @Test
  void aScanReturnsEachFilesRowsWholeAndInOrder() {
    // Two files of 3,000 rows each, read two at a time on background threads in 1,024-row batches.
    List<List<Object>> rows = run("select f_id from fact");
    assertThat(rows).hasSize(6000);
    long first = (Long) rows.get(0).get(0);
    assertThat(first).isIn(0L, 3000L);
    for (int i = 0; i < 6000; i++) {
      long expected = i < 3000 ? first + i : (first == 0 ? 3000 : 0) + (i - 3000);
      assertThat(rows.get(i).get(0)).as("row %d", i).isEqualTo(expected);
    }
    assertThat(run("select count(*), sum(f_value) from fact where f_small = 3"))
        .isEqualTo(List.of(List.of(600L, 600L * 3 + 10L * 599 * 600 / 2)));
    assertThat(run("select b_name from big where b_key = 8")).isEqualTo(List.of(List.of("green 8")));
  }

  private List<List<Object>> run(String sql) {
    Prepared prepared = engine.prepare(session, sql);
    List<List<Object>> rows = new ArrayList<>();
    try (QueryExecution exec = engine.execute(session, prepared, List.of(), "q")) {
      while (exec.next()) {
        VectorSchemaRoot root = exec.root();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (var v : root.getFieldVectors()) {
            Object value = v.getObject(r);
            row.add(value instanceof org.apache.arrow.vector.util.Text ? value.toString() : value);
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }
}
