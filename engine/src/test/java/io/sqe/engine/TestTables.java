package io.sqe.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** Writes test rows into Iceberg tables: one Parquet file per call, one commit. */
final class TestTables {
  private static int task;

  private TestTables() {}

  static void appendFile(Table table, List<Record> records) {
    appendPartitionFile(table, records, null);
  }

  /** Appends one file of {@code records} to a table partitioned by one identity field with this value. */
  static void appendPartitionFile(Table table, List<Record> records, Object partitionValue) {
    PartitionData partition = null;
    if (partitionValue != null) {
      partition = new PartitionData(table.spec().partitionType());
      partition.set(0, partitionValue);
    }
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    EncryptedOutputFile file =
        OutputFileFactory.builderFor(table, 1, ++task).format(FileFormat.PARQUET).build().newOutputFile();
    DataWriter<Record> writer = writers.newDataWriter(file, table.spec(), partition);
    try (writer) {
      for (Record r : records) {
        writer.write(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.newAppend().appendFile(writer.toDataFile()).commit();
  }
}
