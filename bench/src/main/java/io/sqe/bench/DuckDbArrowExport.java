package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.duckdb.DuckDBResultSet;

/**
 * DuckDB in process (default settings: one thread per core) reading Parquet files into Arrow: the
 * result of one query handed over as Arrow batches through {@link DuckDBResultSet#arrowExportStream}
 * (Arrow's C stream interface, no copy per value) and read to the last batch.
 */
final class DuckDbArrowExport implements AutoCloseable {
  private final Connection connection;
  private final String sql;

  private DuckDbArrowExport(Connection connection, String sql) {
    this.connection = connection;
    this.sql = sql;
  }

  /** An in-memory DuckDB that runs {@code SELECT columns FROM read_parquet([files])} and {@code suffix} (an ORDER BY, or empty). */
  static DuckDbArrowExport open(TableFiles files, String columns, String suffix) throws SQLException {
    requireNonNull(files, "files is null");
    requireNonNull(columns, "columns is null");
    requireNonNull(suffix, "suffix is null");
    return new DuckDbArrowExport(DriverManager.getConnection("jdbc:duckdb:"), "SELECT " + columns + " FROM " + files.readParquet() + suffix);
  }

  /** DuckDB's version and thread count, for the report. */
  String describe() throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("select version(), current_setting('threads')")) {
      rs.next();
      return "DuckDB " + rs.getString(1) + ", threads=" + rs.getString(2);
    }
  }

  /** From executeQuery to the last Arrow batch of {@code batchRows} rows read. */
  ThroughputPass read(BufferAllocator allocator, long batchRows) throws Exception {
    long start = System.nanoTime();
    long rows = 0;
    long bytes = 0;
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql);
        ArrowReader reader = (ArrowReader) rs.unwrap(DuckDBResultSet.class).arrowExportStream(allocator, batchRows)) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
        bytes += ThroughputPass.bufferBytes(reader.getVectorSchemaRoot());
      }
    }
    return new ThroughputPass(rows, bytes, System.nanoTime() - start);
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
