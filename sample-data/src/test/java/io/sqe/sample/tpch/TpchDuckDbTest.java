package io.sqe.sample.tpch;

import static io.sqe.sample.tpch.TpchTestData.SCALE;
import static io.sqe.sample.tpch.TpchTestData.SCHEMA;
import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.catalog.LakehouseCatalog;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Reads the loaded Parquet files with DuckDB and compares them with the generator, then runs the 22
 * queries in DuckDB and compares their answers with the reference answers the tpch library ships
 * for scale factor 0.01.
 */
class TpchDuckDbTest {
  @TempDir static Path warehouse;
  private static LakehouseCatalog catalog;
  private static Connection duckdb;

  @BeforeAll
  static void loadAndCreateViews() throws SQLException {
    catalog = TpchTestData.catalog(warehouse);
    TpchLoader.defaults().load(catalog, SCHEMA, SCALE);
    duckdb = DriverManager.getConnection("jdbc:duckdb:");
    try (Statement statement = duckdb.createStatement()) {
      for (String table : TpchLoader.tableNames()) {
        String files =
            TpchTestData.dataFilePaths(TpchTestData.table(catalog, table)).stream()
                .map(path -> "'" + path.replace("'", "''") + "'")
                .collect(Collectors.joining(", ", "[", "]"));
        statement.execute("CREATE VIEW " + table + " AS SELECT * FROM read_parquet(" + files + ")");
      }
    }
  }

  @AfterAll
  static void close() throws SQLException, IOException {
    if (duckdb != null) {
      duckdb.close();
    }
    catalog.close();
  }

  static Stream<TpchTable<?>> tables() {
    return TpchTable.getTables().stream();
  }

  /**
   * For every column: DuckDB's aggregate over the files equals the same aggregate over the
   * generator's own column accessors. Sums of decimals are compared exactly.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("tables")
  <E extends TpchEntity> void filesHoldTheGeneratedData(TpchTable<E> table) throws SQLException {
    List<ColumnCheck<E>> checks = new ArrayList<>();
    checks.add(
        new ColumnCheck<>("count(*)", rows -> BigDecimal.valueOf(rows.size()).toPlainString()));
    for (TpchColumn<E> column : table.getColumns()) {
      checks.addAll(columnChecks(column));
    }
    List<E> rows = new ArrayList<>();
    table.createGenerator(SCALE, 1, 1).forEach(rows::add);

    String sql =
        checks.stream()
            .map(ColumnCheck::duckdbExpression)
            .collect(Collectors.joining(", ", "SELECT ", " FROM " + table.getTableName()));
    try (Statement statement = duckdb.createStatement();
        ResultSet result = statement.executeQuery(sql)) {
      assertThat(result.next()).isTrue();
      for (int i = 0; i < checks.size(); i++) {
        ColumnCheck<E> check = checks.get(i);
        assertThat(result.getString(i + 1))
            .as(check.duckdbExpression())
            .isEqualTo(check.expected(rows));
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("tables")
  void parquetTypesAreTheTpchTypes(TpchTable<?> table) throws SQLException {
    try (Statement statement = duckdb.createStatement();
        ResultSet result = statement.executeQuery("DESCRIBE " + table.getTableName())) {
      for (TpchColumn<?> column : table.getColumns()) {
        assertThat(result.next()).isTrue();
        assertThat(result.getString("column_name")).isEqualTo(column.getColumnName());
        String expected =
            switch (column.getType().getBase()) {
              case IDENTIFIER -> "BIGINT";
              case INTEGER -> "INTEGER";
              case DATE -> "DATE";
              case VARCHAR -> "VARCHAR";
              case DOUBLE -> "DECIMAL(15,2)";
            };
        assertThat(result.getString("column_type")).as(column.getColumnName()).isEqualTo(expected);
      }
      assertThat(result.next()).isFalse();
    }
  }

  @ParameterizedTest(name = "q{0}")
  @MethodSource("io.sqe.sample.tpch.TpchQueries#numbers")
  void queriesGiveTheReferenceAnswers(int n) throws SQLException, IOException {
    List<String[]> expected = referenceAnswer(n);
    List<String[]> actual = new ArrayList<>();
    int columns;
    try (Statement statement = duckdb.createStatement();
        ResultSet result = statement.executeQuery(TpchQueries.query(n))) {
      columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        String[] row = new String[columns];
        for (int i = 0; i < columns; i++) {
          row[i] = result.getString(i + 1);
        }
        actual.add(row);
      }
    }

    assertThat(actual).as("q%s rows", n).isNotEmpty().hasSameSizeAs(expected);
    for (int r = 0; r < actual.size(); r++) {
      String[] want = expected.get(r);
      String[] got = actual.get(r);
      assertThat(want).as("q%s reference row %s", n, r).hasSize(columns);
      for (int c = 0; c < columns; c++) {
        assertSameValue(got[c], want[c], String.format("q%d row %d column %d", n, r + 1, c + 1));
      }
    }
  }

  private static <E extends TpchEntity> List<ColumnCheck<E>> columnChecks(TpchColumn<E> column) {
    String name = column.getColumnName();
    return switch (column.getType().getBase()) {
      case IDENTIFIER ->
          List.of(
              new ColumnCheck<>(
                  "sum(" + name + ")",
                  rows -> Long.toString(rows.stream().mapToLong(column::getIdentifier).sum())));
      case INTEGER ->
          List.of(
              new ColumnCheck<>(
                  "sum(" + name + ")",
                  rows -> Long.toString(rows.stream().mapToLong(column::getInteger).sum())));
      case DOUBLE ->
          List.of(
              new ColumnCheck<>(
                  "sum(" + name + ")",
                  rows ->
                      rows.stream()
                          .map(row -> new BigDecimal(Double.toString(column.getDouble(row))))
                          .reduce(BigDecimal.ZERO, BigDecimal::add)
                          .setScale(2)
                          .toPlainString()));
      case DATE ->
          List.of(
              new ColumnCheck<>(
                  "min(" + name + ")",
                  rows ->
                      LocalDate.ofEpochDay(
                              rows.stream().mapToInt(column::getDate).min().orElseThrow())
                          .toString()),
              new ColumnCheck<>(
                  "max(" + name + ")",
                  rows ->
                      LocalDate.ofEpochDay(
                              rows.stream().mapToInt(column::getDate).max().orElseThrow())
                          .toString()),
              new ColumnCheck<>(
                  "sum(date_diff('day', DATE '1970-01-01', " + name + "))",
                  rows -> Long.toString(rows.stream().mapToLong(column::getDate).sum())));
      case VARCHAR ->
          List.of(
              new ColumnCheck<>(
                  "sum(length(" + name + "))",
                  rows ->
                      Long.toString(
                          rows.stream().mapToLong(row -> column.getString(row).length()).sum())),
              new ColumnCheck<>(
                  "min(" + name + ")",
                  rows ->
                      rows.stream().map(column::getString).min(String::compareTo).orElseThrow()),
              new ColumnCheck<>(
                  "max(" + name + ")",
                  rows ->
                      rows.stream().map(column::getString).max(String::compareTo).orElseThrow()));
    };
  }

  /** One aggregate, computed by DuckDB over the files and in Java over the generated rows. */
  private record ColumnCheck<E>(
      String duckdbExpression, java.util.function.Function<List<E>, String> answer) {
    String expected(List<E> rows) {
      return answer.apply(rows);
    }
  }

  /** The answer the tpch library ships for its version of query n at scale factor 0.01. */
  private static List<String[]> referenceAnswer(int n) throws IOException {
    String resource = "io/trino/tpch/queries/q" + n + ".result";
    try (InputStream in = TpchTable.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8)
          .lines()
          .filter(line -> !line.startsWith("--") && !line.isBlank())
          .map(line -> line.endsWith("|") ? line.substring(0, line.length() - 1) : line)
          .map(line -> line.split("\\|", -1))
          .toList();
    }
  }

  /** Numbers match to within a cent: the reference rounds some averages to two places. */
  private static void assertSameValue(String actual, String expected, String description) {
    if (expected.equals("null")) {
      assertThat(actual).as(description).isNull();
      return;
    }
    BigDecimal expectedNumber = number(expected);
    BigDecimal actualNumber = actual == null ? null : number(actual);
    if (expectedNumber != null && actualNumber != null) {
      assertThat(actualNumber.subtract(expectedNumber).abs())
          .as("%s: %s vs reference %s", description, actual, expected)
          .isLessThanOrEqualTo(new BigDecimal("0.01"));
    } else {
      assertThat(actual).as(description).isEqualTo(expected);
    }
  }

  private static BigDecimal number(String text) {
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
