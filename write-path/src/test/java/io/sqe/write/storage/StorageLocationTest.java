package io.sqe.write.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StorageLocationTest {
  @TempDir Path dir;

  @Test
  void chosenLocationsAreTakenApartTheWayStorageReadsThem() {
    assertThat(StorageLocation.parseChosen("/a/b")).isEqualTo(new StorageLocation("file", "", List.of("a", "b")));
    assertThat(StorageLocation.parseChosen("file:/a/b/")).isEqualTo(StorageLocation.parseChosen("/a/b"));
    assertThat(StorageLocation.parseChosen("file:///a/b")).isEqualTo(StorageLocation.parseChosen("/a/b"));
    assertThat(StorageLocation.parseChosen("file://localhost/a/b")).isEqualTo(StorageLocation.parseChosen("/a/b"));
    assertThat(StorageLocation.parseChosen("S3://bucket/k/")).isEqualTo(new StorageLocation("s3", "bucket", List.of("k")));
    assertThat(StorageLocation.parseChosen("s3a://bucket")).isEqualTo(new StorageLocation("s3a", "bucket", List.of()));
    assertThat(StorageLocation.parseChosen("webhdfs://10.0.0.1:9870/x").scheme()).isEqualTo("webhdfs");
  }

  @Test
  void ambiguousChosenLocationsAreRefused() {
    for (String text : List.of(
        "", " /a", "/a ", "a/b", "/a//b", "/a/./b", "/a/../b", "..", "file://host/a", "file:", "s3:///k", "s3:k", "/a?b", "/a#b",
        "/a/%2e%2e/b", "/a\\b", "/a\u0000b", "s3://bucket/k?versionId=1")) {
      assertThatThrownBy(() -> StorageLocation.parseChosen(text)).as(text).isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void containmentIsBySegmentsAndSchemeFamily() {
    StorageLocation ab = StorageLocation.parseChosen("/a/b");
    assertThat(ab.contains(StorageLocation.parseChosen("/a/b/c/"))).isTrue();
    assertThat(ab.contains(StorageLocation.parseChosen("file:///a/b"))).isTrue();
    assertThat(ab.contains(StorageLocation.parseChosen("/a/bc"))).isFalse();
    assertThat(ab.contains(StorageLocation.parseChosen("/a"))).isFalse();
    assertThat(ab.overlaps(StorageLocation.parseChosen("/a"))).isTrue();
    StorageLocation s3 = StorageLocation.parseChosen("s3://bucket/wh");
    assertThat(s3.contains(StorageLocation.parseChosen("s3a://bucket/wh/t"))).isTrue();
    assertThat(s3.contains(StorageLocation.parseChosen("s3://other/wh/t"))).isFalse();
    assertThat(s3.contains(StorageLocation.parseChosen("/wh/t"))).isFalse();
  }

  @Test
  void existingLocationsAreReadAsTheirStorageReadsThem() {
    // Hadoop's local file system resolves '..'; S3 keys are literal up to '?' or '#', where S3FileIO ends them.
    assertThat(StorageLocation.parseExisting("file:/wh/pub/../hr/victim")).contains(StorageLocation.parseChosen("/wh/hr/victim"));
    assertThat(StorageLocation.parseExisting("file:///wh//hr/./victim/")).contains(StorageLocation.parseChosen("/wh/hr/victim"));
    assertThat(StorageLocation.parseExisting("s3://b/wh/../x").orElseThrow().segments()).containsExactly("wh", "..", "x");
    assertThat(StorageLocation.parseExisting("s3://b/wh/v?x/data/f.parquet").orElseThrow().segments()).containsExactly("wh", "v");
    assertThat(StorageLocation.parseExisting("s3a://b/k").orElseThrow().key()).isEqualTo(StorageLocation.parseExisting("s3://b/k").orElseThrow().key());
    assertThat(StorageLocation.parseExisting("file:/a/b").orElseThrow().key()).isEqualTo(StorageLocation.parseExisting("/a/b").orElseThrow().key());
    assertThat(StorageLocation.parseExisting("file:///w/t//data/a.parquet").orElseThrow().key())
        .isEqualTo(StorageLocation.parseExisting("file:/w/t/data/a.parquet").orElseThrow().key());
    assertThat(StorageLocation.parseExisting("s3:nobucket")).isEmpty();
  }

  @Test
  void symbolicLinksAreFollowedWhereTheyExist() throws Exception {
    Path target = Files.createDirectories(dir.resolve("target"));
    Path lake = Files.createDirectories(dir.resolve("lake"));
    Files.createSymbolicLink(lake.resolve("link"), target);
    StorageLocation viaLink = StorageLocation.parseChosen(lake.resolve("link").resolve("t").resolve("x").toString()).resolveLinks();
    assertThat(viaLink).isEqualTo(StorageLocation.parseChosen(target.toRealPath().resolve("t").resolve("x").toString()));
    assertThat(StorageLocation.parseChosen(lake.toRealPath().toString()).contains(viaLink)).isFalse();
    assertThat(StorageLocation.parseChosen("s3://b/k").resolveLinks()).isEqualTo(StorageLocation.parseChosen("s3://b/k"));
  }
}
