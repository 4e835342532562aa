package io.sqe.sample.tpch;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What {@link TpchLoader#load} did: per table, the rows it holds and whether it was loaded now. */
public record TpchLoadSummary(
    String schema, double scaleFactor, List<TableLoad> tables, Duration elapsed) {
  public TpchLoadSummary {
    requireNonNull(schema, "schema is null");
    tables = List.copyOf(tables);
    requireNonNull(elapsed, "elapsed is null");
  }

  /** Rows per table name, in load order. */
  public Map<String, Long> rowsPerTable() {
    Map<String, Long> rows = new LinkedHashMap<>();
    tables.forEach(table -> rows.put(table.table(), table.rows()));
    return rows;
  }

  public long rows(String table) {
    return tables.stream()
        .filter(load -> load.table().equals(table))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("Not a TPC-H table: " + table))
        .rows();
  }

  /** One table: its rows and data files, and {@code skipped} when it already held the data. */
  public record TableLoad(String table, long rows, int dataFiles, boolean skipped) {
    public TableLoad {
      requireNonNull(table, "table is null");
    }
  }
}
