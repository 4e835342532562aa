package io.sqe.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * DuckDB in process, with default settings (one thread per core), reading the same Parquet files
 * as SQE through one view per table over {@code read_parquet([...])}. One execution is
 * executeQuery through the last row read with getObject.
 */
final class DuckDbEngine implements Engine {
  private final Connection connection;

  private DuckDbEngine(Connection connection) {
    this.connection = connection;
  }

  /** An in-memory DuckDB with a view named after each table over that table's data files. */
  static DuckDbEngine open(Map<String, List<String>> dataFilesByTable) throws SQLException {
    Connection connection = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement s = connection.createStatement()) {
      for (Map.Entry<String, List<String>> table : dataFilesByTable.entrySet()) {
        String files =
            table.getValue().stream()
                .map(f -> "'" + f.replace("'", "''") + "'")
                .collect(Collectors.joining(", "));
        s.execute(
            "create view \"" + table.getKey() + "\" as select * from read_parquet([" + files + "])");
      }
      return new DuckDbEngine(connection);
    } catch (SQLException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public String name() {
    return "DuckDB";
  }

  /** DuckDB's version and thread count, for the report. */
  String describe() throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("select version(), current_setting('threads')")) {
      rs.next();
      return "DuckDB " + rs.getString(1) + ", threads=" + rs.getString(2);
    }
  }

  @Override
  public ResultRows execute(String sql, Cancellation cancellation) throws Exception {
    try (Statement statement = connection.createStatement()) {
      cancellation.onCancel(() -> cancel(statement));
      try (ResultSet rs = statement.executeQuery(sql)) {
        int columns = rs.getMetaData().getColumnCount();
        List<List<Object>> rows = new ArrayList<>();
        while (rs.next()) {
          List<Object> row = new ArrayList<>(columns);
          for (int c = 1; c <= columns; c++) {
            row.add(ResultValues.normalize(rs.getObject(c)));
          }
          rows.add(row);
        }
        return new ResultRows(rows, -1);
      } finally {
        cancellation.onCancel(() -> {});
      }
    }
  }

  /** Runs a statement without a result set (COPY, DDL) and returns its update count. */
  long update(String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
      return statement.getUpdateCount();
    }
  }

  private static void cancel(Statement statement) {
    try {
      statement.cancel();
    } catch (SQLException e) {
      throw new IllegalStateException("Cannot cancel the DuckDB query: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
