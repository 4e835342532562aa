package io.sqe.engine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/** Writes test rows into Iceberg tables: one Parquet file per call, one commit. */
public final class TestTables {
  private static int task;

  private TestTables() {}

  public static DataFile appendFile(Table table, List<Record> records) {
    return appendPartitionFile(table, records, null);
  }

  /** Commits a position delete file that deletes these row positions of {@code file}. */
  static void deletePositions(Table table, DataFile file, long... positions) {
    GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table).deleteFileFormat(FileFormat.PARQUET).build();
    PositionDeleteWriter<Record> writer = writers.newPositionDeleteWriter(newFile(table), table.spec(), null);
    try (writer) {
      for (long position : positions) {
        writer.write(PositionDelete.<Record>create().set(file.location(), position, null));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
  }

  /** Commits an equality delete file that deletes the rows whose {@code column} equals one of {@code keys}. */
  static void deleteWhereEquals(Table table, String column, List<?> keys) {
    Schema deleteSchema = table.schema().select(column);
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(new int[] {table.schema().findField(column).fieldId()})
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    EqualityDeleteWriter<Record> writer = writers.newEqualityDeleteWriter(newFile(table), table.spec(), null);
    try (writer) {
      for (Object key : keys) {
        Record r = GenericRecord.create(deleteSchema);
        r.set(0, key);
        writer.write(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    table.newRowDelta().addDeletes(writer.toDeleteFile()).commit();
  }

  private static EncryptedOutputFile newFile(Table table) {
    return OutputFileFactory.builderFor(table, 1, ++task).format(FileFormat.PARQUET).build().newOutputFile();
  }

  /** Appends one file of {@code records} to a table partitioned by one identity field with this value. */
  static DataFile appendPartitionFile(Table table, List<Record> records, Object partitionValue) {
    PartitionData partition = null;
    if (partitionValue != null) {
      partition = new PartitionData(table.spec().partitionType());
      partition.set(0, partitionValue);
    }
    GenericFileWriterFactory writers =
        new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
    EncryptedOutputFile file = newFile(table);
    DataWriter<Record> writer = writers.newDataWriter(file, table.spec(), partition);
    try (writer) {
      for (Record r : records) {
        writer.write(r);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    DataFile dataFile = writer.toDataFile();
    table.newAppend().appendFile(dataFile).commit();
    return dataFile;
  }
}
