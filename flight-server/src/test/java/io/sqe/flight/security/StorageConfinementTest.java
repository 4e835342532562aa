package io.sqe.flight.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlClient.ExecuteIngestOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableExistsOption;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandStatementIngest.TableDefinitionOptions.TableNotExistOption;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of issue 22 on storage, through a real server with a policy file and the Flight SQL
 * client: a user who may create tables in schema {@code pub} only (bob) tries to make a table's
 * files land in, or be deleted from, the directory of {@code hr.victim}, which he cannot see, and
 * to make the server connect to other hosts. After each test the victim's files and rows are all
 * there. Legitimate use (default locations, an admin under an allowed prefix) still works.
 */
class StorageConfinementTest {
  private static final String POLICY =
      """
      {
        "schemas": [{"role": "admin", "owner": true}, {"role": "analyst", "schema": "pub", "owner": true}],
        "tables": [
          {"role": "admin", "privileges": ["OWNERSHIP"]},
          {"role": "analyst", "schema": "pub", "privileges": ["OWNERSHIP"]}
        ]
      }
      """;

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static TestServer server;
  private static Path warehouse;
  private static Path lake;
  private static Path victimDir;
  private static Set<Path> victimFiles;

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    Path policy = dir.resolve("rules.json");
    Files.writeString(policy, POLICY);
    lake = Files.createDirectories(dir.resolve("lake"));
    server = TestServer.start(dir.resolve("data"), Map.of(
        "security.policy-file", policy.toString(),
        "security.allowed-locations", lake.toUri().toString(),
        "maintenance.min-retention", "0s"));
    server.server().authentication().users().addUser("bob", "bob-pw".toCharArray(), Set.of("analyst"));
    warehouse = dir.resolve("data").resolve("warehouse");
    try (TestServer.Client admin = server.client(allocator)) {
      update(admin, "CREATE SCHEMA hr");
      update(admin, "CREATE SCHEMA pub");
      update(admin, "CREATE TABLE hr.victim (id INT, note VARCHAR)");
      for (int i = 1; i <= 3; i++) {
        update(admin, "INSERT INTO hr.victim VALUES (" + i + ", 'row " + i + "')");
      }
    }
    victimDir = localPath(table("hr", "victim").location());
    assertThat(victimDir).isEqualTo(warehouse.resolve("hr").resolve("victim"));
    victimFiles = files(victimDir);
    assertThat(victimFiles).isNotEmpty();
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    allocator.close();
  }

  /** Whatever a test tried, every file of hr.victim is where it was and its rows read back. */
  @AfterEach
  void victimIsIntact() throws Exception {
    assertThat(files(victimDir)).containsAll(victimFiles);
    try (TestServer.Client admin = server.client(allocator)) {
      assertThat(rows(admin, "SELECT count(*), sum(id) FROM hr.victim")).containsExactly(List.of(3L, 6L));
    }
  }

  // ---- names that would become paths

  @Test
  void tableNamesThatClimbOutOfTheirSchemaAreRefused() throws Exception {
    String escape = "../../../../" + dir.getFileName() + "/escaped";
    try (TestServer.Client bob = bob()) {
      for (String name : List.of("../hr/victim", escape, "..\\hr\\victim", "..", ".", "a/b", "v?", "v#x", "nul\u0000x", "tab\tx")) {
        String quoted = "pub.\"" + name + "\"";
        for (String sql : List.of(
            "CREATE TABLE " + quoted + " (id INT)",
            "CREATE OR REPLACE TABLE " + quoted + " (id INT)",
            "CREATE TABLE " + quoted + " AS SELECT 1 AS id",
            "CREATE VIEW " + quoted + " AS SELECT 1 AS id")) {
          assertThatThrownBy(() -> update(bob, sql)).as(sql)
              .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
              .hasMessageContaining("name");
          attempt(() -> rows(bob, "ALTER TABLE " + quoted + " EXECUTE remove_orphan_files(retention_threshold => '0s')"));
        }
      }
      update(bob, "CREATE TABLE pub.movable (id INT)");
      update(bob, "CREATE VIEW pub.movable_view AS SELECT 1 AS id");
      assertThatThrownBy(() -> update(bob, "ALTER TABLE pub.movable RENAME TO pub.\"../hr/moved\""))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT)).hasMessageContaining("../hr/moved");
      assertThatThrownBy(() -> update(bob, "ALTER VIEW pub.movable_view RENAME TO pub.\"../hr/moved\""))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT)).hasMessageContaining("../hr/moved");
    }
    assertThat(dir.resolve("escaped")).doesNotExist();
    assertThat(catalog().iceberg().listTables(org.apache.iceberg.catalog.Namespace.of("pub")))
        .extracting(TableIdentifier::name).doesNotContain("../hr/victim", escape);
  }

  @Test
  void schemaNamesThatArePathsAreRefused() throws Exception {
    try (TestServer.Client admin = server.client(allocator)) {
      for (String name : List.of("../escaped", "..", ".", "a/b", "a\\b", "x\u0001")) {
        assertThatThrownBy(() -> update(admin, "CREATE SCHEMA \"" + name + "\"")).as(name)
            .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
            .hasMessageContaining("name");
      }
    }
    assertThat(dir.resolve("data").resolve("escaped")).doesNotExist();
  }

  @Test
  void bulkIngestWithPathNamesIsRefused() throws Exception {
    try (TestServer.Client bob = bob()) {
      for (String name : List.of("../hr/victim", "../../../../" + dir.getFileName() + "/escaped", "..", "x\u0000y")) {
        for (TableExistsOption ifExists : List.of(TableExistsOption.TABLE_EXISTS_OPTION_APPEND, TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)) {
          assertThatThrownBy(() -> ingest(bob, "pub", name, ifExists)).as(name)
              .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
              .hasMessageContaining("name");
        }
      }
      assertThatThrownBy(() -> ingest(bob, "pub/../hr", "victim", TableExistsOption.TABLE_EXISTS_OPTION_REPLACE))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("pub/../hr");
      // An ordinary name still ingests.
      assertThat(ingest(bob, "pub", "ingested", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)).isEqualTo(2);
    }
    assertThat(dir.resolve("escaped")).doesNotExist();
  }

  @Test
  void bulkIngestNeedsThePrivilegesOfTheStatementsItStandsFor() throws Exception {
    try (TestServer.Client bob = bob()) {
      // A table he cannot see is as good as missing: he may not create it, and appending to it finds nothing;
      // the answers are those for a table that does not exist.
      for (String table : List.of("victim", "fresh")) {
        for (TableExistsOption ifExists : List.of(
            TableExistsOption.TABLE_EXISTS_OPTION_APPEND, TableExistsOption.TABLE_EXISTS_OPTION_REPLACE, TableExistsOption.TABLE_EXISTS_OPTION_FAIL)) {
          assertThatThrownBy(() -> ingest(bob, "hr", table, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, ifExists)).as(table + " " + ifExists)
              .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining("cannot CREATE table iceberg.hr." + table);
        }
        assertThatThrownBy(() -> ingest(bob, "hr", table, TableNotExistOption.TABLE_NOT_EXIST_OPTION_FAIL, TableExistsOption.TABLE_EXISTS_OPTION_APPEND))
            .as(table).satisfies(status(FlightStatusCode.NOT_FOUND)).hasMessageContaining("iceberg.hr." + table + " does not exist");
      }
      assertThat(catalog().iceberg().tableExists(TableIdentifier.of("hr", "fresh"))).isFalse();
      // In his own schema he may create, append and replace.
      assertThat(ingest(bob, "pub", "own", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)).isEqualTo(2);
      assertThat(ingest(bob, "pub", "own", TableExistsOption.TABLE_EXISTS_OPTION_APPEND)).isEqualTo(2);
      assertThat(ingest(bob, "pub", "own", TableExistsOption.TABLE_EXISTS_OPTION_REPLACE)).isEqualTo(2);
      assertThat(rows(bob, "SELECT count(*) FROM pub.own")).containsExactly(List.of(2L));
    }
  }

  // ---- chosen locations and path properties

  @Test
  void aTableCannotBePlacedInAnotherTablesDirectory() throws Exception {
    try (TestServer.Client bob = bob()) {
      for (String location : List.of(victimDir.toString(), victimDir.toUri().toString(), "file://" + victimDir + "/", warehouse + "/pub/../hr/victim")) {
        assertThatThrownBy(() -> update(bob, "CREATE TABLE pub.squat (id INT) WITH (location = '" + location + "')")).as(location)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED, FlightStatusCode.INVALID_ARGUMENT))
            .hasMessageContaining("location");
        attempt(() -> rows(bob, "ALTER TABLE pub.squat EXECUTE remove_orphan_files(retention_threshold => '0s')"));
        attempt(() -> update(bob, "DROP TABLE pub.squat"));
        assertThatThrownBy(() -> update(bob, "CREATE TABLE pub.squat2 WITH (location = '" + location + "') AS SELECT 1 AS id")).as(location)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED, FlightStatusCode.INVALID_ARGUMENT))
            .hasMessageContaining("location");
        attempt(() -> rows(bob, "ALTER TABLE pub.squat2 EXECUTE remove_orphan_files(retention_threshold => '0s')"));
        attempt(() -> update(bob, "DROP TABLE pub.squat2"));
      }
      update(bob, "CREATE TABLE pub.mover (id INT)");
      update(bob, "INSERT INTO pub.mover VALUES (1)");
      assertThatThrownBy(() -> update(bob, "ALTER TABLE pub.mover SET PROPERTIES location = '" + victimDir + "'"))
          .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining("location");
      attempt(() -> rows(bob, "ALTER TABLE pub.mover EXECUTE remove_orphan_files(retention_threshold => '0s')"));
    }
  }

  @Test
  void pathPropertiesCannotPointIntoAnotherTable() throws Exception {
    try (TestServer.Client bob = bob()) {
      update(bob, "CREATE TABLE pub.paths (id INT)");
      for (String key : List.of(
          TableProperties.WRITE_DATA_LOCATION, TableProperties.WRITE_METADATA_LOCATION, TableProperties.OBJECT_STORE_PATH,
          TableProperties.WRITE_FOLDER_STORAGE_LOCATION)) {
        String value = victimDir.resolve(key.contains("metadata") ? "metadata" : "data").toString();
        assertThatThrownBy(() -> update(bob, "CREATE TABLE pub.paths2 (id INT) WITH ('" + key + "' = '" + value + "')")).as(key)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining(key);
        assertThatThrownBy(() -> update(bob, "ALTER TABLE pub.paths SET PROPERTIES '" + key + "' = '" + value + "'")).as(key)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining(key);
        assertThatThrownBy(() -> update(bob, "CREATE TABLE pub.paths3 WITH ('" + key + "' = '" + value + "') AS SELECT 1 AS id")).as(key)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining(key);
      }
      attempt(() -> update(bob, "INSERT INTO pub.paths VALUES (1)"));
      attempt(() -> update(bob, "INSERT INTO pub.paths2 VALUES (1)"));
      for (String table : List.of("paths", "paths2", "paths3")) {
        attempt(() -> rows(bob, "ALTER TABLE pub." + table + " EXECUTE remove_orphan_files(retention_threshold => '0s')"));
        attempt(() -> rows(bob, "ALTER TABLE pub." + table + " EXECUTE expire_snapshots(retention_threshold => '0s')"));
      }
      // A location provider of one's own would put files anywhere.
      assertThatThrownBy(() -> update(bob, "ALTER TABLE pub.paths SET PROPERTIES 'write.location-provider.impl' = 'org.example.Anywhere'"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT, FlightStatusCode.UNAUTHORIZED))
          .hasMessageContaining("write.location-provider.impl");
      // Other properties stay free.
      update(bob, "ALTER TABLE pub.paths SET PROPERTIES 'write.target-file-size-bytes' = 1048576, 'owner.team' = 'bi'");
    }
  }

  @Test
  void locationsOfOtherStorageAreRefusedBeforeAnyConnection() throws Exception {
    try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      AtomicInteger connections = new AtomicInteger();
      Thread acceptor = new Thread(() -> {
        while (!listener.isClosed()) {
          try (Socket socket = listener.accept()) {
            connections.incrementAndGet();
          } catch (IOException closed) {
            return;
          }
        }
      }, "storage-test-acceptor");
      acceptor.setDaemon(true);
      acceptor.start();
      String host = "127.0.0.1:" + listener.getLocalPort();
      List<String> locations = List.of(
          "webhdfs://" + host + "/x", "hdfs://" + host + "/x", "swebhdfs://" + host + "/x", "ftp://" + host + "/x",
          "har://hdfs-127.0.0.1:" + listener.getLocalPort() + "/x.har", "http://" + host + "/x", "s3://bucket/x");
      try (TestServer.Client admin = server.client(allocator); TestServer.Client bob = bob()) {
        for (TestServer.Client client : List.of(admin, bob)) {
          for (String location : locations) {
            List<String> statements = new ArrayList<>(List.of(
                "CREATE TABLE pub.remote (id INT) WITH (location = '" + location + "')",
                "CREATE TABLE pub.remote WITH (location = '" + location + "') AS SELECT 1 AS id",
                "CREATE TABLE pub.remote (id INT) WITH ('write.data.path' = '" + location + "')"));
            if (client == admin) {
              // Bob owns no schema but pub: the policy refuses him before the location is looked at.
              statements.add("CREATE SCHEMA remote WITH (location = '" + location + "')");
            }
            for (String sql : statements) {
              assertThatThrownBy(() -> update(client, sql)).as(sql)
                  .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
                  .hasMessageContaining("scheme");
              attempt(() -> update(client, "INSERT INTO pub.remote VALUES (1)"));
              attempt(() -> update(client, "DROP TABLE pub.remote"));
            }
          }
        }
      }
      assertThat(connections.get()).as("connections to " + host).isZero();
    }
  }

  // ---- maintenance over tables that share storage (made by another engine, or before these checks)

  @Test
  void removeOrphanFilesRefusesATableWhoseLocationOverlapsAnother() throws Exception {
    // As an older server let bob do: a table of his at the victim's location.
    catalog().iceberg().buildTable(TableIdentifier.of("pub", "legacy"), new org.apache.iceberg.Schema(
        org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.IntegerType.get())))
        .withLocation(victimDir.toUri().toString())
        .create();
    try (TestServer.Client bob = bob()) {
      update(bob, "INSERT INTO pub.legacy VALUES (1)");
      assertThatThrownBy(() -> rows(bob, "ALTER TABLE pub.legacy EXECUTE remove_orphan_files(retention_threshold => '0s')"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT))
          .hasMessageContaining("overlaps");
      assertThat(rows(bob, "SELECT count(*) FROM pub.legacy")).containsExactly(List.of(1L));
    }
  }

  @Test
  void removeOrphanFilesKeepsFilesAnotherTableReferences() throws Exception {
    try (TestServer.Client bob = bob()) {
      update(bob, "CREATE TABLE pub.host (id INT)");
      update(bob, "INSERT INTO pub.host VALUES (1)");
      Path hostDir = localPath(table("pub", "host").location());
      // Another engine wrote a table whose data files lie in the host's directory.
      catalog().iceberg().buildTable(TableIdentifier.of("pub", "guest"), new org.apache.iceberg.Schema(
          org.apache.iceberg.types.Types.NestedField.optional(1, "id", org.apache.iceberg.types.Types.IntegerType.get())))
          .withProperty(TableProperties.WRITE_DATA_LOCATION, hostDir.resolve("guest-data").toUri().toString())
          .create();
      update(bob, "INSERT INTO pub.guest VALUES (10), (20)");
      Set<Path> guestFiles = files(hostDir.resolve("guest-data"));
      assertThat(guestFiles).isNotEmpty();
      Path stray = hostDir.resolve("data").resolve("stray.parquet");
      Files.writeString(stray, "not referenced by any table");
      assertThat(rows(bob, "ALTER TABLE pub.host EXECUTE remove_orphan_files(retention_threshold => '0s')"))
          .singleElement().satisfies(row -> assertThat(row.get(2)).isEqualTo(1L));
      assertThat(stray).doesNotExist();
      assertThat(files(hostDir.resolve("guest-data"))).containsAll(guestFiles);
      assertThat(rows(bob, "SELECT sum(id) FROM pub.guest")).containsExactly(List.of(30L));
      assertThat(rows(bob, "SELECT sum(id) FROM pub.host")).containsExactly(List.of(1L));
    }
  }

  @Test
  void expireSnapshotsKeepsFilesAnotherTableReferences() throws Exception {
    try (TestServer.Client bob = bob()) {
      update(bob, "CREATE TABLE pub.sharer (id INT, note VARCHAR)");
      // Another engine added the victim's data files to bob's table (as Spark's add_files does).
      Table victim = table("hr", "victim");
      Table sharer = table("pub", "sharer");
      var append = sharer.newAppend();
      try (CloseableIterable<FileScanTask> tasks = victim.newScan().planFiles()) {
        for (FileScanTask task : tasks) {
          append.appendFile((DataFile) task.file());
        }
      }
      append.commit();
      assertThat(rows(bob, "SELECT count(*) FROM pub.sharer")).containsExactly(List.of(3L));
      // The snapshot that removes them, then one more, so that expiring all but the last cleans them up.
      update(bob, "DELETE FROM pub.sharer");
      update(bob, "INSERT INTO pub.sharer VALUES (9, 'own')");
      assertThat(rows(bob, "ALTER TABLE pub.sharer EXECUTE expire_snapshots(retention_threshold => '0s', retain_last => 1)"))
          .singleElement().satisfies(row -> assertThat(row.get(0)).isEqualTo(2L));
      assertThat(rows(bob, "SELECT count(*) FROM pub.sharer")).containsExactly(List.of(1L));
    }
  }

  @Test
  void dropTablePurgeKeepsFilesAnotherTableReferences() throws Exception {
    // Another engine registered the victim's metadata as a table of bob's (Iceberg's register_table).
    String victimMetadata = ((org.apache.iceberg.HasTableOperations) table("hr", "victim")).operations().current().metadataFileLocation();
    catalog().iceberg().registerTable(TableIdentifier.of("pub", "clone"), victimMetadata);
    try (TestServer.Client bob = bob()) {
      assertThat(rows(bob, "SELECT count(*) FROM pub.clone")).containsExactly(List.of(3L));
      update(bob, "INSERT INTO pub.clone VALUES (4, 'his own')");
      Set<Path> own = files(victimDir);
      own.removeAll(victimFiles);
      assertThat(own).isNotEmpty();
      update(bob, "DROP TABLE pub.clone PURGE");
      assertThat(catalog().iceberg().tableExists(TableIdentifier.of("pub", "clone"))).isFalse();
      // What only the clone referenced is gone; what the victim references stays (checked after each test).
      assertThat(own).noneMatch(Files::exists);
      // A table of his own is purged as before.
      update(bob, "CREATE TABLE pub.purged (id INT)");
      update(bob, "INSERT INTO pub.purged VALUES (1)");
      Path purgedDir = localPath(table("pub", "purged").location());
      assertThat(files(purgedDir)).isNotEmpty();
      update(bob, "DROP TABLE pub.purged PURGE");
      assertThat(files(purgedDir)).isEmpty();
    }
  }

  // ---- legitimate use

  @Test
  void defaultLocationsStillWork() throws Exception {
    try (TestServer.Client bob = bob()) {
      update(bob, "CREATE TABLE pub.plain (id INT)");
      update(bob, "INSERT INTO pub.plain VALUES (1), (2)");
      assertThat(rows(bob, "SELECT sum(id) FROM pub.plain")).containsExactly(List.of(3L));
      assertThat(localPath(table("pub", "plain").location())).isEqualTo(warehouse.resolve("pub").resolve("plain"));
      Path stray = warehouse.resolve("pub").resolve("plain").resolve("data").resolve("stray.parquet");
      Files.writeString(stray, "not referenced");
      assertThat(rows(bob, "ALTER TABLE pub.plain EXECUTE remove_orphan_files(retention_threshold => '0s')"))
          .singleElement().satisfies(row -> assertThat(row.get(2)).isEqualTo(1L));
      assertThat(stray).doesNotExist();
      assertThat(rows(bob, "SELECT sum(id) FROM pub.plain")).containsExactly(List.of(3L));
    }
  }

  @Test
  void anAdministratorMayPlaceTablesUnderAnAllowedPrefixOnly() throws Exception {
    try (TestServer.Client admin = server.client(allocator)) {
      update(admin, "CREATE TABLE pub.ext (id INT) WITH (location = '" + lake.resolve("ext").toUri() + "')");
      update(admin, "INSERT INTO pub.ext VALUES (1), (2)");
      assertThat(rows(admin, "SELECT sum(id) FROM pub.ext")).containsExactly(List.of(3L));
      assertThat(files(lake.resolve("ext").resolve("data"))).isNotEmpty();
      update(admin, "CREATE TABLE pub.ext_copy WITH (LOCATION = '" + lake.resolve("copy") + "/') AS SELECT * FROM pub.ext");
      assertThat(localPath(table("pub", "ext_copy").location())).isEqualTo(lake.resolve("copy"));
      assertThat(rows(admin, "SELECT sum(id) FROM pub.ext_copy")).containsExactly(List.of(3L));
      update(admin, "CREATE TABLE pub.ext_split (id INT)");
      update(admin, "ALTER TABLE pub.ext_split SET PROPERTIES 'write.data.path' = '" + lake.resolve("split-data") + "'");
      update(admin, "INSERT INTO pub.ext_split VALUES (5)");
      assertThat(files(lake.resolve("split-data"))).isNotEmpty();
      assertThat(rows(admin, "SELECT sum(id) FROM pub.ext_split")).containsExactly(List.of(5L));

      // Inside, equal to, or around another table's location: FAILED_PRECONDITION on the wire.
      for (Path taken : List.of(lake.resolve("ext").resolve("inner"), lake.resolve("ext"), lake, lake.resolve("split-data"))) {
        assertThatThrownBy(() -> update(admin, "CREATE TABLE pub.taken (id INT) WITH (location = '" + taken + "')")).as(taken.toString())
            .satisfies(status(FlightStatusCode.INVALID_ARGUMENT)).hasMessageContaining("share files with another table");
      }
      assertThatThrownBy(() -> update(admin, "ALTER TABLE pub.ext_split SET PROPERTIES location = '" + lake.resolve("copy") + "'"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT)).hasMessageContaining("share files with another table");
      // Outside the allowed prefixes, also through a symbolic link in the lake, or spelled with '..'.
      Files.createSymbolicLink(lake.resolve("link"), warehouse.resolve("hr"));
      for (String outside : List.of(victimDir.toString(), warehouse.resolve("pub").resolve("elsewhere").toString(), lake.resolve("link").resolve("victim2").toString())) {
        assertThatThrownBy(() -> update(admin, "CREATE TABLE pub.outside (id INT) WITH (location = '" + outside + "')")).as(outside)
            .satisfies(status(FlightStatusCode.UNAUTHORIZED)).hasMessageContaining("security.allowed-locations");
      }
      assertThatThrownBy(() -> update(admin, "CREATE TABLE pub.outside (id INT) WITH (location = '" + lake + "/../data/warehouse/hr/victim')"))
          .satisfies(status(FlightStatusCode.INVALID_ARGUMENT)).hasMessageContaining("'..'");
      assertThat(catalog().iceberg().tableExists(TableIdentifier.of("pub", "outside"))).isFalse();
      assertThat(catalog().iceberg().tableExists(TableIdentifier.of("pub", "taken"))).isFalse();
    }
  }

  // ---- helpers

  private static TestServer.Client bob() {
    FlightClient flight = FlightClient.builder(allocator, server.server().location()).build();
    CallOption auth = flight.authenticateBasicToken("bob", "bob-pw").orElseThrow();
    return new TestServer.Client(flight, new FlightSqlClient(flight), auth);
  }

  private static void update(TestServer.Client client, String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  private static List<List<Object>> rows(TestServer.Client client, String sql) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : client.rows(client.sql().execute(sql, client.auth()))) {
      List<Object> canonical = new ArrayList<>();
      for (Object value : row) {
        canonical.add(value instanceof Number number ? (Object) number.longValue() : value);
      }
      rows.add(canonical);
    }
    return rows;
  }

  /** Runs the next step of an attack whether or not the server refused the step before. */
  private static void attempt(ThrowingRunnable step) {
    try {
      step.run();
    } catch (Exception e) {
      // The step is expected to fail once the earlier one was refused.
    }
  }

  private interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static long ingest(TestServer.Client client, String schema, String table, TableExistsOption ifExists) throws Exception {
    return ingest(client, schema, table, TableNotExistOption.TABLE_NOT_EXIST_OPTION_CREATE, ifExists);
  }

  private static long ingest(TestServer.Client client, String schema, String table, TableNotExistOption ifMissing, TableExistsOption ifExists)
      throws Exception {
    Schema arrow = new Schema(List.of(new Field("id", FieldType.nullable(new ArrowType.Int(32, true)), null)));
    try (VectorSchemaRoot data = VectorSchemaRoot.create(arrow, allocator)) {
      ((IntVector) data.getVector("id")).setSafe(0, 7);
      ((IntVector) data.getVector("id")).setSafe(1, 8);
      data.setRowCount(2);
      ExecuteIngestOptions options = new ExecuteIngestOptions(
          table,
          TableDefinitionOptions.newBuilder().setIfNotExist(ifMissing).setIfExists(ifExists).build(),
          null, schema, Map.of());
      return client.sql().executeIngest(data, options, client.auth());
    }
  }

  private static java.util.function.Consumer<Throwable> status(FlightStatusCode... codes) {
    return e -> assertThat(e).isInstanceOfSatisfying(FlightRuntimeException.class, f -> assertThat(f.status().code()).isIn((Object[]) codes));
  }

  private static LakehouseCatalog catalog() {
    return server.server().catalogs().find("iceberg").orElseThrow();
  }

  private static Table table(String schema, String name) {
    return catalog().iceberg().loadTable(TableIdentifier.of(schema, name));
  }

  private static Path localPath(String location) {
    return Path.of(location.replaceFirst("^file:(//)?", "")).normalize();
  }

  private static Set<Path> files(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return Set.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      // Hadoop's local file system keeps hidden .crc checksums beside files.
      return walk.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().endsWith(".crc")).collect(Collectors.toSet());
    }
  }
}
