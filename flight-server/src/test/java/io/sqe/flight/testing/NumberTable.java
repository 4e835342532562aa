package io.sqe.flight.testing;

import io.sqe.catalog.LakehouseCatalog;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A table of {@code n} (0, 1, ...) and a 100-character {@code label} made from it: big enough
 * for streaming tests, and its self cross join runs for minutes.
 */
public final class NumberTable {
  public static final Schema SCHEMA =
      new Schema(
          Types.NestedField.required(1, "n", Types.LongType.get()),
          Types.NestedField.required(2, "label", Types.StringType.get()));

  private NumberTable() {}

  /** The label of row {@code n}. */
  public static String label(long n) {
    return String.format("label-%094d", n);
  }

  public static void create(LakehouseCatalog catalog, String schema, String name, int rows, long maxRowsPerFile) {
    List<Record> records = new ArrayList<>();
    for (long n = 0; n < rows; n++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("n", n);
      r.setField("label", label(n));
      records.add(r);
    }
    TestTables.create(catalog, schema, name, SCHEMA, records, maxRowsPerFile);
  }
}
