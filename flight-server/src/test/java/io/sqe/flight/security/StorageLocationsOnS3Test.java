package io.sqe.flight.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TestServer;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Chosen locations on S3 (s3proxy behind a REST catalog, S3FileIO): an administrator places a
 * table under the allowed prefix, other buckets, other schemes and overlapping keys are refused,
 * and remove_orphan_files deletes within the table's own prefix only.
 */
class StorageLocationsOnS3Test {
  private static final String LAKE = "s3://" + S3Fixture.BUCKET + "/lake/";

  @TempDir static Path dir;
  private static RootAllocator allocator;
  private static S3Fixture s3;
  private static RestCatalogFixture rest;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    allocator = new RootAllocator();
    s3 = S3Fixture.start(dir.resolve("s3"));
    rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("rest"));
    Map<String, String> settings = new HashMap<>(S3Fixture.sqeSettings(rest, s3.fileIoProperties()));
    settings.put("maintenance.min-retention", "0s");
    settings.put("security.allowed-locations", LAKE);
    server = TestServer.start(dir.resolve("sqe"), settings);
    try (TestServer.Client admin = server.client(allocator)) {
      update(admin, "CREATE SCHEMA app");
    }
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
    rest.close();
    s3.close();
    allocator.close();
  }

  @Test
  void anAdministratorPlacesATableUnderTheAllowedPrefixAndOrphanRemovalStaysInside() throws Exception {
    try (TestServer.Client admin = server.client(allocator)) {
      update(admin, "CREATE TABLE app.plain (id INT)");
      assertThat(table("plain").location()).startsWith("s3://" + S3Fixture.BUCKET + "/rest/");
      update(admin, "CREATE TABLE app.ext (id INT) WITH (location = '" + LAKE + "ext')");
      update(admin, "INSERT INTO app.ext VALUES (1), (2)");
      assertThat(rows(admin, "SELECT sum(id) FROM app.ext")).containsExactly(List.of(3L));
      Table ext = table("ext");
      assertThat(ext.location()).isEqualTo(LAKE + "ext");

      // A stray object in the table's prefix goes; one in a sibling whose key merely starts the same stays.
      String stray = LAKE + "ext/data/stray.parquet";
      String sibling = LAKE + "ext2/data/keep.parquet";
      for (String object : List.of(stray, sibling)) {
        try (OutputStream out = ext.io().newOutputFile(object).create()) {
          out.write("no metadata names this".getBytes(StandardCharsets.UTF_8));
        }
      }
      assertThat(rows(admin, "ALTER TABLE app.ext EXECUTE remove_orphan_files(retention_threshold => '0s')"))
          .singleElement().satisfies(row -> assertThat(row.get(2)).isEqualTo(1L));
      assertThat(s3.localPath(stray)).doesNotExist();
      assertThat(s3.localPath(sibling)).exists();
      assertThat(rows(admin, "SELECT sum(id) FROM app.ext")).containsExactly(List.of(3L));
    }
  }

  @Test
  void otherBucketsSchemesAndOverlapsAreRefused() throws Exception {
    try (TestServer.Client admin = server.client(allocator)) {
      update(admin, "CREATE TABLE app.owner (id INT) WITH (location = '" + LAKE + "owner')");
      Map<String, FlightStatusCode> refused = Map.of(
          "s3://other-bucket/lake/x", FlightStatusCode.UNAUTHORIZED,
          "s3://" + S3Fixture.BUCKET + "/rest/app/x", FlightStatusCode.UNAUTHORIZED,
          "file:" + dir.resolve("local"), FlightStatusCode.INVALID_ARGUMENT,
          "webhdfs://127.0.0.1:1/x", FlightStatusCode.INVALID_ARGUMENT,
          LAKE + "owner?x", FlightStatusCode.INVALID_ARGUMENT,
          // FAILED_PRECONDITION on the wire: s3a names the same objects as s3.
          "s3a://" + S3Fixture.BUCKET + "/lake/owner/inner", FlightStatusCode.INVALID_ARGUMENT,
          LAKE, FlightStatusCode.INVALID_ARGUMENT);
      refused.forEach((location, code) ->
          assertThatThrownBy(() -> update(admin, "CREATE TABLE app.refused (id INT) WITH (location = '" + location + "')")).as(location)
              .isInstanceOfSatisfying(FlightRuntimeException.class, e -> assertThat(e.status().code()).isEqualTo(code)));
      assertThat(rest.backend().tableExists(TableIdentifier.of("app", "refused"))).isFalse();
      assertThat(Files.exists(dir.resolve("local"))).isFalse();
    }
  }

  private static Table table(String name) {
    return rest.backend().loadTable(TableIdentifier.of("app", name));
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
}
