package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TestServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Maintenance of a table on S3 (s3proxy) behind a REST catalog, where listing goes through
 * S3FileIO's prefix listing and locations are {@code s3://} URIs: compaction, expiry and orphan
 * removal delete exactly the objects they should.
 */
class TableMaintenanceOnS3Test {
  @TempDir Path dir;
  private RootAllocator allocator;
  private S3Fixture s3;
  private RestCatalogFixture rest;
  private TestServer server;
  private TestServer.Client client;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    s3 = S3Fixture.start(dir.resolve("s3"));
    rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("rest"));
    Map<String, String> settings = new HashMap<>(S3Fixture.sqeSettings(rest, s3.fileIoProperties()));
    settings.put("maintenance.min-retention", "0s");
    server = TestServer.start(dir.resolve("sqe"), settings);
    client = server.client(allocator);
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    server.close();
    rest.close();
    s3.close();
    allocator.close();
  }

  @Test
  void compactExpireAndRemoveOrphansOnS3() throws Exception {
    update("create schema app");
    update("create table app.t (id int, v varchar)");
    for (int i = 1; i <= 5; i++) {
      update("insert into app.t values (" + i + ", 'v" + i + "')");
    }
    List<List<Object>> before = rows("select * from app.t order by id");
    assertThat(rows("alter table app.t execute optimize")).singleElement()
        .satisfies(row -> assertThat(row.subList(0, 2)).containsExactly(5L, 1L));
    assertThat(rows("alter table app.t execute expire_snapshots(retention_threshold => '0s')")).singleElement()
        .satisfies(row -> {
          assertThat(row.get(0)).isEqualTo(5L);
          // Iceberg's incremental cleanup (a table with only its main branch) deletes the files that
          // expired snapshots removed; the five files compaction replaced are removed by the
          // compaction's snapshot, which stays, so they stay until it expires too.
          assertThat(row.get(1)).isEqualTo(0L);
          assertThat(row.get(3)).isEqualTo(5L);
        });
    Table table = rest.backend().loadTable(TableIdentifier.of("app", "t"));
    assertThat(table.location()).startsWith("s3://");
    String stray = table.location() + "/data/stray-00000.parquet";
    try (OutputStream out = table.io().newOutputFile(stray).create()) {
      out.write("no metadata names this".getBytes(StandardCharsets.UTF_8));
    }
    Path tableDir = s3.localPath(table.location());
    Set<Path> objects = objects(tableDir);
    assertThat(objects).contains(s3.localPath(stray));

    table.refresh();
    Set<Path> reachable = new HashSet<>();
    for (String path : reachable(table)) {
      reachable.add(s3.localPath(path));
    }
    // Unreachable: the stray object, and the five data files no kept snapshot reads any more.
    Set<Path> unreachable = new HashSet<>(objects);
    unreachable.removeAll(reachable);
    assertThat(unreachable).hasSize(6).contains(s3.localPath(stray));

    List<List<Object>> report = rows("alter table app.t execute remove_orphan_files(retention_threshold => '0s')");
    assertThat(report).singleElement().satisfies(row -> {
      assertThat(row.get(0)).isEqualTo((long) objects.size());
      assertThat(row.get(2)).isEqualTo(6L);
    });
    Set<Path> gone = new HashSet<>(objects);
    gone.removeAll(objects(tableDir));
    assertThat(gone).isEqualTo(unreachable);
    for (Path path : reachable) {
      assertThat(Files.exists(path)).as(path.toString()).isTrue();
    }
    assertThat(rows("select * from app.t order by id")).isEqualTo(before);
  }

  private void update(String sql) {
    client.sql().executeUpdate(sql, client.auth());
  }

  private List<List<Object>> rows(String sql) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    for (List<Object> row : client.rows(client.sql().execute(sql, client.auth()))) {
      rows.add(row.stream().map(v -> v instanceof org.apache.arrow.vector.util.Text ? v.toString() : v).collect(Collectors.toList()));
    }
    return rows;
  }

  private static Set<Path> objects(Path root) throws IOException {
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(Files::isRegularFile).collect(Collectors.toSet());
    }
  }

  private static Set<String> reachable(Table table) throws IOException {
    Set<String> files = new HashSet<>();
    org.apache.iceberg.TableMetadata metadata = ((org.apache.iceberg.HasTableOperations) table).operations().current();
    files.add(metadata.metadataFileLocation());
    metadata.previousFiles().forEach(entry -> files.add(entry.file()));
    for (Snapshot snapshot : table.snapshots()) {
      files.add(snapshot.manifestListLocation());
      for (ManifestFile manifest : snapshot.allManifests(table.io())) {
        files.add(manifest.path());
      }
      try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId()).planFiles()) {
        tasks.forEach(task -> files.add(task.file().location()));
      }
    }
    return files;
  }
}
