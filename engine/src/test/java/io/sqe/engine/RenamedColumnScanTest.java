package io.sqe.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Session;
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
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A filter on a column renamed since the current snapshot was written (its schema still has the
 * old name) selects the same rows as before the rename: through the scan planning cache (planned
 * before the rename too), through Iceberg's own planning (a file with deletes), on the partition
 * column, and with columns added since; time travel and branches still filter by the names of the
 * schema they read.
 */
class RenamedColumnScanTest {
  private static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "id", Types.LongType.get()),
          Types.NestedField.optional(2, "region", Types.StringType.get()),
          Types.NestedField.optional(3, "amount", Types.LongType.get()));

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();
  private QueryEngine engine;
  private Session session;

  @BeforeEach
  void setUp() {
    engine = lake.engine();
    session = EmbeddedLake.session("test");
  }

  @Test
  void filterOnTheNewNameReadsTheSnapshotWrittenBeforeTheRename() {
    Table table = create("plain", PartitionSpec.unpartitioned());
    append(table, 1, 4);
    append(table, 5, 8);
    // Plans (and caches the snapshot's files) before the rename.
    assertThat(ids("select id from plain where region = 'eu' order by id")).containsExactly(2L, 4L, 6L, 8L);

    rename("plain", "region", "area");
    assertThat(ids("select id from plain where area = 'eu' order by id")).containsExactly(2L, 4L, 6L, 8L);
    assertThat(ids("select id from plain where area = 'us' and amount > 40 order by id")).containsExactly(5L, 7L);
    assertThat(ids("select count(*) from plain where area like 'e%'")).containsExactly(4L);

    lake.catalog().iceberg().loadTable(TableIdentifier.of("s", "plain")).updateSchema()
        .addColumn("note", Types.StringType.get()).commit();
    lake.catalog().invalidate(TableIdentifier.of("s", "plain"));
    assertThat(ids("select id from plain where note is null and area = 'us' order by id")).containsExactly(1L, 3L, 5L, 7L);
    assertThat(ids("select id from plain where note = 'x' or id = 1")).containsExactly(1L);
  }

  @Test
  void renamedPartitionColumnStillPrunes() {
    Table table = create("parted", PartitionSpec.builderFor(SCHEMA).identity("region").build());
    for (long id = 1; id <= 6; id++) {
      GenericRecord r = record(id);
      TestTables.appendPartitionFile(table, List.of(r), r.getField("region"));
    }
    assertThat(ids("select id from parted where region = 'eu' order by id")).containsExactly(2L, 4L, 6L);

    rename("parted", "region", "area");
    TestQueries.Result result = TestQueries.run(engine, session, "select id from parted where area = 'eu' order by id");
    assertThat(result.rows()).containsExactly(List.of(2L), List.of(4L), List.of(6L));
    assertThat(result.stats().filesScanned()).isEqualTo(3);
  }

  @Test
  void filesWithDeletesArePlannedByIcebergUnderTheNewName() {
    Table table = create("deleted", PartitionSpec.unpartitioned());
    DataFile file = append(table, 1, 6);
    TestTables.deletePositions(table, file, 0);

    table.refresh();
    long before = table.currentSnapshot().snapshotId();

    rename("deleted", "region", "area");
    assertThat(ids("select id from deleted where area = 'us' order by id")).containsExactly(3L, 5L);
    assertThat(ids("select id from deleted for version as of " + before + " where region = 'eu' order by id")).containsExactly(2L, 4L, 6L);
  }

  @Test
  void timeTravelAndBranchesFilterByTheNamesOfTheSchemaTheyRead() {
    Table table = create("travel", PartitionSpec.builderFor(SCHEMA).identity("region").build());
    for (long id = 1; id <= 4; id++) {
      GenericRecord r = record(id);
      TestTables.appendPartitionFile(table, List.of(r), r.getField("region"));
    }
    table.refresh();
    long before = table.currentSnapshot().snapshotId();
    table.manageSnapshots().createBranch("audit", before).commit();

    rename("travel", "region", "area");
    // The snapshot's own schema calls the column region; a branch reads with the table's schema.
    assertThat(ids("select id from travel for version as of " + before + " where region = 'eu' order by id"))
        .containsExactly(2L, 4L);
    assertThat(ids("select id from travel for version as of 'audit' where area = 'us' order by id")).containsExactly(1L, 3L);
  }

  private Table create(String name, PartitionSpec spec) {
    return lake.catalog().iceberg().createTable(TableIdentifier.of("s", name), SCHEMA, spec, Map.of("format-version", "2"));
  }

  /** Rows {@code from..to}: odd ids in region us, even ones in eu, amount ten times the id. */
  private static DataFile append(Table table, long from, long to) {
    List<Record> records = new ArrayList<>();
    for (long id = from; id <= to; id++) {
      records.add(record(id));
    }
    return TestTables.appendFile(table, records);
  }

  private static GenericRecord record(long id) {
    GenericRecord r = GenericRecord.create(SCHEMA);
    r.setField("id", id);
    r.setField("region", id % 2 == 0 ? "eu" : "us");
    r.setField("amount", id * 10);
    return r;
  }

  /** Renames a column as ALTER TABLE does: a schema change without a new snapshot. */
  private void rename(String table, String from, String to) {
    TableIdentifier id = TableIdentifier.of("s", table);
    lake.catalog().iceberg().loadTable(id).updateSchema().renameColumn(from, to).commit();
    lake.catalog().invalidate(id);
  }

  private List<Object> ids(String sql) {
    List<Object> ids = new ArrayList<>();
    for (List<Object> row : TestQueries.rows(engine, session, sql)) {
      ids.add(row.get(0));
    }
    return ids;
  }
}
