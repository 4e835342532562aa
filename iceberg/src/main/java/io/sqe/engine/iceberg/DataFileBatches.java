package io.sqe.engine.iceberg;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.util.PartitionUtil;

/**
 * Every row of one data file, in file order, as record batches of the table's columns: what a
 * copy-on-write rewrite copies. No row group is skipped and no row dropped, so a row's position in
 * the file is the number of rows before it.
 */
public final class DataFileBatches {
  private DataFileBatches() {}

  /** The Arrow schema of the batches {@link #read} gives for {@code schema}: the scan's types. */
  public static org.apache.arrow.vector.types.pojo.Schema arrowSchema(Schema schema) {
    return CalciteTypeMapping.toArrowSchema(CalciteTypeMapping.toCalcite(new JavaTypeFactoryImpl(), schema));
  }

  /**
   * Per column of {@code schema}, the converter of a value of Iceberg's generic data model (what
   * Iceberg's generic writers take) into the engine's value, which {@code ColumnWriter} writes.
   */
  public static List<Function<Object, Object>> engineValues(Schema schema) {
    return schema.columns().stream().map(field -> IcebergValueConverters.forType(field.type())).toList();
  }

  /**
   * The rows of {@code task}'s whole file with buffers from {@code allocator}, or empty when the
   * vectorized reader does not read it (delete files, another format, a type it does not gather)
   * or the task is a split of the file: the caller then reads its rows.
   */
  public static Optional<CloseableIterator<VectorSchemaRoot>> read(Table table, FileScanTask task, BufferAllocator allocator) {
    requireNonNull(table, "table is null");
    requireNonNull(task, "task is null");
    requireNonNull(allocator, "allocator is null");
    if (task.start() != 0 || task.length() < task.file().fileSizeInBytes()) {
      return Optional.empty();
    }
    Schema schema = table.schema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, IdentityPartitionConverters::convertConstant);
    return Optional.ofNullable(
        VectorizedTaskReader.openBatches(table.io(), task, Expressions.alwaysTrue(), schema, arrowSchema(schema), constants, null, allocator));
  }
}
