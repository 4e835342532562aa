package io.sqe.write.files;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Reads every live row of one data file as Iceberg records, for a copy-on-write rewrite: all
 * columns of the table's schema, then the row's position in the file ({@link #POSITION}). Delete
 * files that apply to the file are honoured; the scan's residual filter is not, since the rewrite
 * must keep the rows it does not change.
 */
public final class DataFileRows {
  private DataFileRows() {}

  /** The schema of the records {@link #read} returns: the table's columns, then the position. */
  public static Schema schema(Table table) {
    List<Types.NestedField> fields = new ArrayList<>(table.schema().columns());
    fields.add(MetadataColumns.ROW_POSITION);
    return new Schema(fields);
  }

  /** Where in a record of {@link #schema} its position is. */
  public static int positionIndex(Table table) {
    return table.schema().columns().size();
  }

  /** The live rows of the task's file, in file order; close the iterable. */
  public static CloseableIterable<Record> read(Table table, FileScanTask task) {
    Schema requested = schema(table);
    GenericDeleteFilter deletes = new GenericDeleteFilter(table.io(), task, table.schema(), requested);
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    CloseableIterable<Record> records =
        FormatModelRegistry.readBuilder(task.file().format(), Record.class, table.io().newInputFile(task.file()))
            .project(deletes.requiredSchema())
            .idToConstant(constants)
            .build();
    return deletes.filter(records);
  }
}
