package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.BothCatalogs;
import io.sqe.flight.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.util.SnapshotUtil;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Iceberg metadata tables ({@code "t$snapshots"} and the others) and time travel ({@code FOR VERSION
 * AS OF}, {@code FOR TIMESTAMP AS OF}) through the Flight SQL JDBC driver and FlightSqlClient, with
 * the embedded catalog and with a REST catalog. Metadata rows are checked against Iceberg's own API
 * (snapshots, history, planned files, manifests, refs, properties); each snapshot read back is
 * checked against the rows written up to it.
 */
class TimeTravelTest {
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");

  @RegisterExtension static final BothCatalogs SERVERS = new BothCatalogs();

  static Stream<TestServer> servers() {
    return SERVERS.both();
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void metadataTablesAgreeWithIceberg(TestServer server) throws Exception {
    String t = "m" + TABLES.incrementAndGet();
    try (TestServer.Client client = server.client(SERVERS.allocator())) {
      update(client, "create table app." + t + " (id int, region varchar) partitioned by (region)");
      update(client, "insert into app." + t + " values (1, 'eu'), (2, 'us')");
      update(client, "insert into app." + t + " values (3, 'eu')");
      update(client, "delete from app." + t + " where id = 2");
      Table table = table(server, t);

      List<List<Object>> snapshots = query(client,
          "select snapshot_id, parent_id, operation, manifest_list, committed_at from app.\"" + t + "$snapshots\" order by committed_at, snapshot_id");
      List<List<Object>> expected = new ArrayList<>();
      List<Snapshot> icebergSnapshots = new ArrayList<>();
      table.snapshots().forEach(icebergSnapshots::add);
      icebergSnapshots.sort((a, b) -> a.timestampMillis() != b.timestampMillis()
          ? Long.compare(a.timestampMillis(), b.timestampMillis()) : Long.compare(a.snapshotId(), b.snapshotId()));
      for (Snapshot s : icebergSnapshots) {
        expected.add(List.of(s.snapshotId(), s.parentId() == null ? "null" : s.parentId(), s.operation(), s.manifestListLocation(), s.timestampMillis()));
      }
      assertThat(snapshots).hasSize(3);
      assertThat(snapshots.stream().map(r -> List.of(r.get(0), r.get(1) == null ? "null" : r.get(1), r.get(2).toString(), r.get(3).toString(),
              micros(r.get(4)) / 1000)).toList())
          .isEqualTo(expected);
      // The summary is a map like Iceberg's.
      assertThat(query(client, "select summary['total-records'] from iceberg.app.\"" + t + "$snapshots\" where snapshot_id = "
              + table.currentSnapshot().snapshotId()))
          .extracting(row -> row.get(0).toString())
          .containsExactly(table.currentSnapshot().summary().get("total-records"));

      List<List<Object>> history = query(client,
          "select snapshot_id, is_current_ancestor, made_current_at from app.\"" + t + "$history\" order by made_current_at, snapshot_id");
      List<List<Object>> expectedHistory = new ArrayList<>();
      for (HistoryEntry entry : table.history()) {
        expectedHistory.add(List.of(entry.snapshotId(), true, entry.timestampMillis()));
      }
      assertThat(history.stream().map(r -> List.of(r.get(0), r.get(1), micros(r.get(2)) / 1000)).toList()).isEqualTo(expectedHistory);

      Map<String, Long> files = new TreeMap<>();
      try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          files.put(task.file().location(), task.file().recordCount());
        }
      }
      Map<String, Long> listed = new TreeMap<>();
      for (List<Object> row : query(client, "select file_path, record_count, file_format, content from app.\"" + t + "$files\"")) {
        listed.put(row.get(0).toString(), (Long) row.get(1));
        assertThat(row.get(2).toString()).isEqualTo("PARQUET");
        assertThat(row.get(3)).isEqualTo(0);
      }
      assertThat(listed).isEqualTo(files).hasSize(2);
      // Bounds are readable, keyed by field id: id is field 1.
      assertThat(query(client, "select min(lower_bounds[1]), max(upper_bounds[1]) from app.\"" + t + "$files\""))
          .containsExactly(List.of("1", "3"));

      List<ManifestFile> manifests = table.currentSnapshot().allManifests(table.io());
      long addedRows = manifests.stream().mapToLong(m -> m.addedRowsCount() == null ? 0 : m.addedRowsCount()).sum();
      assertThat(query(client, "select count(*), sum(added_rows_count) from app.\"" + t + "$manifests\""))
          .containsExactly(List.of((long) manifests.size(), addedRows));
      assertThat(query(client, "select distinct partition_summaries[1].lower_bound from app.\"" + t + "$manifests\" order by 1"))
          .isNotEmpty();

      // $partitions, aggregated and filtered like any table.
      assertThat(query(client, "select p.\"partition\".region, p.record_count, p.file_count from app.\"" + t + "$partitions\" p order by 1"))
          .containsExactly(List.of("eu", 2L, 2L));

      table.manageSnapshots().createTag("first", icebergSnapshots.get(0).snapshotId()).commit();
      // A change made outside this server shows once its table cache lets go of the table.
      server.server().catalogs().find("iceberg").orElseThrow().invalidate(TableIdentifier.of("app", t));
      assertThat(query(client, "select name, type, snapshot_id from app.\"" + t + "$refs\" order by name"))
          .containsExactly(
              List.of("first", "TAG", icebergSnapshots.get(0).snapshotId()),
              List.of("main", "BRANCH", table(server, t).currentSnapshot().snapshotId()));

      Map<String, String> properties = new HashMap<>();
      for (List<Object> row : query(client, "select key, value from app.\"" + t + "$properties\"")) {
        properties.put(row.get(0).toString(), row.get(1).toString());
      }
      assertThat(properties).isEqualTo(table(server, t).properties());

      // Joins between metadata tables and with the table itself.
      assertThat(query(client, "select h.snapshot_id, s.operation from app.\"" + t + "$history\" h join app.\"" + t
              + "$snapshots\" s on h.snapshot_id = s.snapshot_id where s.operation = 'append' order by h.made_current_at"))
          .hasSize(2);
      assertThat(query(client, "select count(*) from app." + t + " d, app.\"" + t + "$files\" f where f.record_count > 0"))
          .containsExactly(List.of(4L));

      if (server == SERVERS.overRest()) {
        // A metadata table costs the catalog no more requests than its table does.
        query(client, "select count(*) from app." + t);
        long before = SERVERS.rest().requests();
        // Another statement text: planned afresh, as a metadata table's statement always is.
        query(client, "select count(*) + 0 from app." + t);
        long forTable = SERVERS.rest().requests() - before;
        before = SERVERS.rest().requests();
        query(client, "select count(*) from app.\"" + t + "$snapshots\"");
        assertThat(SERVERS.rest().requests() - before).isLessThanOrEqualTo(forTable);
      }

      // Errors.
      assertThatThrownBy(() -> query(client, "select * from app.\"nosuch$snapshots\""))
          .satisfies(status(FlightStatusCode.NOT_FOUND, "nosuch$snapshots"));
      assertThatThrownBy(() -> query(client, "select * from app.\"" + t + "$nope\""))
          .satisfies(status(FlightStatusCode.NOT_FOUND, "$nope"));
      assertThatThrownBy(() -> update(client, "insert into app.\"" + t + "$properties\" values ('a', 'b')"))
          .satisfies(status(null, "read-only"));
      assertThatThrownBy(() -> update(client, "delete from app.\"" + t + "$snapshots\""))
          .satisfies(status(null, "read-only"));
      assertThatThrownBy(() -> update(client, "drop table app.\"" + t + "$files\""))
          .satisfies(status(null, "read-only"));

      // Not separate tables in listings.
      assertThat(query(client, "select table_name from information_schema.tables where table_schema = 'app' and table_name like '" + t + "%'"))
          .containsExactly(List.of(t));
      assertThat(client.rows(client.sql().getTables(null, "app", t + "%", null, false, client.auth())))
          .extracting(row -> row.get(2).toString())
          .containsExactly(t);
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void readsEverySnapshotByIdTimeAndRef(TestServer server) throws Exception {
    String t = "v" + TABLES.incrementAndGet();
    try (TestServer.Client client = server.client(SERVERS.allocator());
        Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      s.execute("use app");
      s.executeUpdate("create table app." + t + " (id int, v varchar)");
      // The rows after each statement, and the columns then.
      List<Set<String>> states = new ArrayList<>();
      List<Integer> widths = new ArrayList<>();
      s.executeUpdate("insert into app." + t + " values (1, 'a'), (2, 'b')");
      states.add(Set.of("1|a", "2|b"));
      widths.add(2);
      s.executeUpdate("insert into app." + t + " values (3, 'c')");
      states.add(Set.of("1|a", "2|b", "3|c"));
      widths.add(2);
      s.executeUpdate("alter table app." + t + " add column extra int");
      s.executeUpdate("insert into app." + t + " values (4, 'd', 40)");
      states.add(Set.of("1|a|null", "2|b|null", "3|c|null", "4|d|40"));
      widths.add(3);
      s.executeUpdate("delete from app." + t + " where id = 1");
      states.add(Set.of("2|b|null", "3|c|null", "4|d|40"));
      widths.add(3);

      Table table = table(server, t);
      List<Long> ids = new ArrayList<>();
      for (Snapshot snapshot : SnapshotUtil.ancestorsOf(table.currentSnapshot().snapshotId(), table::snapshot)) {
        ids.add(0, snapshot.snapshotId());
      }
      assertThat(ids).hasSize(states.size());
      for (int i = 0; i < ids.size(); i++) {
        long id = ids.get(i);
        assertThat(rows(s, "select * from app." + t + " for version as of " + id)).as("snapshot %s", i).isEqualTo(states.get(i));
        assertThat(width(s, "select * from app." + t + " for version as of " + id)).isEqualTo(widths.get(i));
        Snapshot snapshot = table.snapshot(id);
        String at = TIMESTAMP.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(snapshot.timestampMillis()), ZoneOffset.UTC));
        long expectedAtTime = SnapshotUtil.snapshotIdAsOfTime(table, snapshot.timestampMillis());
        int expectedIndex = ids.indexOf(expectedAtTime);
        assertThat(rows(s, "select * from " + t + " for timestamp as of timestamp '" + at + "'"))
            .as("at %s", at).isEqualTo(states.get(expectedIndex));
        assertThat(rows(s, "select * from iceberg.app." + t + " for timestamp as of timestamp with local time zone '" + at + "'"))
            .isEqualTo(states.get(expectedIndex));
      }
      // A time zone other than the session's (UTC): the same instant one hour ahead on the clock.
      Snapshot second = table.snapshot(ids.get(1));
      String inParis = TIMESTAMP.format(LocalDateTime.ofInstant(Instant.ofEpochMilli(second.timestampMillis()), ZoneOffset.ofHours(1)));
      assertThat(rows(s, "select * from " + t + " for timestamp as of '" + inParis + " +01:00'"))
          .isEqualTo(states.get(ids.indexOf(SnapshotUtil.snapshotIdAsOfTime(table, second.timestampMillis()))));
      assertThat(rows(s, "select * from " + t + " for timestamp as of '" + inParis + " Europe/Paris'"))
          .isEqualTo(states.get(ids.indexOf(SnapshotUtil.snapshotIdAsOfTime(table, second.timestampMillis()))));
      assertThat(rows(s, "select * from " + t + " for timestamp as of current_timestamp")).isEqualTo(states.get(3));

      table.manageSnapshots().createTag("first", ids.get(0)).createBranch("audit", ids.get(2)).commit();
      assertThat(rows(s, "select * from app." + t + " for version as of 'first'")).isEqualTo(states.get(0));
      assertThat(width(s, "select * from app." + t + " for version as of 'first'")).isEqualTo(2);
      assertThat(rows(s, "select * from app." + t + " for version as of 'audit'")).isEqualTo(states.get(2));

      // Joins, subqueries and CTEs; the same table at two versions in one statement.
      assertThat(rows(s, "select a.id, b.v from app." + t + " for version as of " + ids.get(0) + " a join app." + t
              + " b on a.id = b.id"))
          .isEqualTo(Set.of("2|b"));
      assertThat(rows(s, "select id from app." + t + " for version as of " + ids.get(1) + " where id not in (select id from app." + t
              + " for version as of 'first')"))
          .isEqualTo(Set.of("3"));
      assertThat(rows(s, "with snap as (select * from app." + t + " for version as of " + ids.get(0) + ") select count(*) from snap join "
              + t + " for version as of 'audit' x on snap.id = x.id"))
          .isEqualTo(Set.of("2"));
      assertThat(rows(s, "select " + t + ".v from app." + t + " for version as of " + ids.get(0) + " where " + t + ".id = 1"))
          .isEqualTo(Set.of("a"));

      // The source of CREATE TABLE AS and INSERT.
      s.executeUpdate("create table app." + t + "_copy as select * from app." + t + " for version as of " + ids.get(1));
      assertThat(rows(s, "select * from app." + t + "_copy")).isEqualTo(states.get(1));
      s.executeUpdate("insert into app." + t + "_copy select id + 10, v from app." + t + " for version as of 'first'");
      assertThat(rows(s, "select count(*) from app." + t + "_copy")).isEqualTo(Set.of("5"));

      // A view may read a fixed snapshot.
      s.executeUpdate("create view app." + t + "_then as select id from app." + t + " for version as of " + ids.get(0));
      assertThat(rows(s, "select * from app." + t + "_then")).isEqualTo(Set.of("1", "2"));

      // Errors name the table.
      assertThatThrownBy(() -> query(client, "select * from app." + t + " for version as of 42"))
          .satisfies(status(FlightStatusCode.NOT_FOUND, "iceberg.app." + t + " has no snapshot 42"));
      assertThatThrownBy(() -> query(client, "select * from app." + t + " for version as of 'nope'"))
          .satisfies(status(FlightStatusCode.NOT_FOUND, "iceberg.app." + t + " has no branch or tag 'nope'"));
      assertThatThrownBy(() -> query(client, "select * from app." + t + " for timestamp as of timestamp '2000-01-01 00:00:00'"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT, "iceberg.app." + t + " has no snapshot at or before 2000-01-01T00:00:00Z"));
      assertThatThrownBy(() -> query(client, "select * from app.nosuch for version as of 1"))
          .satisfies(status(FlightStatusCode.NOT_FOUND, "nosuch"));
      s.executeUpdate("create view app." + t + "_view as select * from app." + t);
      assertThatThrownBy(() -> query(client, "select * from app." + t + "_view for version as of " + ids.get(0)))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT, "is a view"));
      assertThatThrownBy(() -> query(client, "select * from app." + t + " for timestamp as of 'yesterday'"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT, "takes a timestamp"));
    }
  }

  @ParameterizedTest(autoCloseArguments = false)
  @MethodSource("servers")
  void aTableOfFourHundredColumns(TestServer server) throws Exception {
    String t = "w" + TABLES.incrementAndGet();
    int columns = 400;
    StringBuilder create = new StringBuilder("create table app." + t + " (");
    StringBuilder values = new StringBuilder("insert into app." + t + " values (");
    for (int i = 0; i < columns; i++) {
      create.append(i == 0 ? "" : ", ").append("c").append(i).append(i % 2 == 0 ? " bigint" : " varchar");
      values.append(i == 0 ? "" : ", ").append(i % 2 == 0 ? String.valueOf(i) : "'v" + i + "'");
    }
    try (Connection jdbc = DriverManager.getConnection(server.jdbcUrl(), TestServer.ADMIN, server.adminPassword());
        Statement s = jdbc.createStatement()) {
      s.executeUpdate(create.append(")").toString());
      s.executeUpdate(values.append(")").toString());
      long first = table(server, t).currentSnapshot().snapshotId();
      s.executeUpdate(values.toString());
      for (String sql : List.of("select * from app." + t, "select * from app." + t + " for version as of " + first)) {
        try (ResultSet rs = s.executeQuery(sql)) {
          ResultSetMetaData meta = rs.getMetaData();
          assertThat(meta.getColumnCount()).isEqualTo(columns);
          int rowCount = 0;
          while (rs.next()) {
            rowCount++;
            for (int i = 0; i < columns; i++) {
              assertThat(meta.getColumnName(i + 1)).isEqualTo("c" + i);
              assertThat(rs.getString(i + 1)).isEqualTo(i % 2 == 0 ? String.valueOf(i) : "v" + i);
            }
          }
          assertThat(rowCount).isEqualTo(sql.contains("version") ? 1 : 2);
        }
      }
      try (ResultSet rs = s.executeQuery("select count(*) from information_schema.columns where table_schema = 'app' and table_name = '" + t + "'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getLong(1)).isEqualTo(columns);
      }
    }
  }

  private static Table table(TestServer server, String name) {
    return server.server().catalogs().find("iceberg").orElseThrow().iceberg().loadTable(TableIdentifier.of("app", name));
  }

  private static long micros(Object timestamp) {
    // The Flight SQL client gives TIMESTAMP WITH LOCAL TIME ZONE values as epoch microseconds.
    return (Long) timestamp;
  }

  private static void update(TestServer.Client client, String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  private static List<List<Object>> query(TestServer.Client client, String sql) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : client.rows(client.sql().execute(sql, client.auth()))) {
      // Arrow's Text for strings, as Java strings.
      rows.add(row.stream().map(v -> v instanceof org.apache.arrow.vector.util.Text ? v.toString() : v).toList());
    }
    return rows;
  }

  /** The rows of a query, each as its values joined by {@code |}. */
  private static Set<String> rows(Statement s, String sql) throws Exception {
    Set<String> rows = new HashSet<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
          values.add(String.valueOf(rs.getString(i)));
        }
        assertThat(rows.add(String.join("|", values))).as("duplicate row in %s", sql).isTrue();
      }
    }
    return rows;
  }

  private static int width(Statement s, String sql) throws Exception {
    try (ResultSet rs = s.executeQuery(sql)) {
      return rs.getMetaData().getColumnCount();
    }
  }

  private static Consumer<Throwable> status(FlightStatusCode code, String message) {
    return e -> assertThat(e).isInstanceOfSatisfying(FlightRuntimeException.class, f -> {
      if (code != null) {
        assertThat(f.status().code()).as(f.getMessage()).isEqualTo(code);
      }
      assertThat(f.getMessage()).contains(message);
    });
  }
}
