package io.sqe.flight.testing;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * A JDBC result's rows as the driver returns each value ({@link ResultSet#getObject(int)}), with
 * no normalization: for tests that compare with values they wrote themselves. {@link
 * ResultComparison#rows} normalizes them for a comparison with DuckDB.
 */
public final class JdbcRows {
  private JdbcRows() {}

  public static List<List<Object>> of(ResultSet result) throws SQLException {
    int columns = result.getMetaData().getColumnCount();
    List<List<Object>> rows = new ArrayList<>();
    while (result.next()) {
      List<Object> row = new ArrayList<>(columns);
      for (int i = 1; i <= columns; i++) {
        row.add(result.getObject(i));
      }
      rows.add(row);
    }
    return rows;
  }
}
