package io.sqe.engine;

import io.sqe.catalog.LakehouseCatalog;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * Three tables of very different sizes in schema {@code s}, written to Parquet: {@code fact} (6,000
 * rows in two files; f_big = f_id % 200, f_small = f_id % 10, f_value = f_id), {@code big} (200
 * rows keyed 0..199, named "green k" for every fourth key and "red k" otherwise) and {@code small}
 * (10 rows keyed 0..9, named "nk").
 */
final class StarSchemaTables {
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

  private StarSchemaTables() {}

  static void write(LakehouseCatalog catalog) {
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
  }
}
