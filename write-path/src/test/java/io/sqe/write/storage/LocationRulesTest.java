package io.sqe.write.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.catalog.CatalogStorage;
import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocationRulesTest {
  private static final Principal ADMIN = new Principal("root", Set.of("admin"));
  private static final Principal USER = new Principal("bob", Set.of("analyst"));

  @TempDir Path dir;

  private LakehouseCatalog catalog(CatalogStorage storage) {
    InMemoryCatalog iceberg = new InMemoryCatalog();
    iceberg.initialize("lake", Map.of());
    return new LakehouseCatalog("lake", iceberg, Duration.ZERO, false, storage);
  }

  private static ErrorCode code(Runnable check) {
    try {
      check.run();
      return null;
    } catch (SqeException e) {
      return e.code();
    }
  }

  @Test
  void checksRunInOrderSyntaxSchemeAdministratorPrefix() {
    Path data = dir.resolve("data");
    LocationRules rules = new LocationRules(List.of(dir.resolve("lake").toString()), data);
    LakehouseCatalog catalog = catalog(CatalogStorage.embedded(data.resolve("warehouse")));
    String inLake = dir.resolve("lake").resolve("t").toString();
    assertThat(code(() -> rules.checkProperty(USER, catalog, "location", "/x/../y", null))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> rules.checkProperty(USER, catalog, "location", "webhdfs://h:1/x", null))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> rules.checkProperty(ADMIN, catalog, "location", "s3://b/x", null))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
    assertThat(code(() -> rules.checkProperty(USER, catalog, "location", inLake, null))).isEqualTo(ErrorCode.PERMISSION_DENIED);
    assertThat(code(() -> rules.checkProperty(ADMIN, catalog, "location", dir.resolve("elsewhere").toString(), null)))
        .isEqualTo(ErrorCode.PERMISSION_DENIED);
    assertThat(rules.checkProperty(ADMIN, catalog, "Write.Data.Path", inLake, null)).contains(StorageLocation.parseChosen(inLake));
    assertThat(rules.checkProperty(USER, catalog, "write.target-file-size-bytes", "1", null)).isEmpty();
    assertThat(code(() -> rules.checkProperty(ADMIN, catalog, "write.location-provider.impl", "x.Y", null))).isEqualTo(ErrorCode.INVALID_ARGUMENT);
  }

  @Test
  void theServersOwnDirectoriesAreNeverGivenEvenUnderAnAllowedPrefix() {
    Path data = dir.resolve("data");
    Path warehouse = data.resolve("warehouse");
    LocationRules rules = new LocationRules(List.of(dir.toString()), data);
    LakehouseCatalog catalog = catalog(CatalogStorage.embedded(warehouse));
    for (Path reserved : List.of(dir, data, warehouse, data.resolve("security"), data.resolve("security").resolve("t"))) {
      assertThatThrownBy(() -> rules.checkProperty(ADMIN, catalog, "location", reserved.toString(), null)).as(reserved.toString())
          .isInstanceOfSatisfying(SqeException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.PERMISSION_DENIED));
    }
    assertThat(rules.checkProperty(ADMIN, catalog, "location", warehouse.resolve("s").resolve("t").toString(), null)).isPresent();
    assertThat(rules.checkProperty(ADMIN, catalog, "location", dir.resolve("lake").toString(), null)).isPresent();
  }

  @Test
  void nobodyChoosesWithoutAllowedPrefixes() {
    LakehouseCatalog catalog = catalog(CatalogStorage.embedded(dir.resolve("warehouse")));
    assertThat(code(() -> LocationRules.NONE.checkProperty(ADMIN, catalog, "location", dir.resolve("t").toString(), null)))
        .isEqualTo(ErrorCode.PERMISSION_DENIED);
  }

  @Test
  void allowedPrefixesMustBeOfTheCatalogsStorage() {
    LakehouseCatalog catalog = catalog(CatalogStorage.embedded(dir.resolve("warehouse")));
    new LocationRules(List.of(dir.toUri().toString()), null).validate(catalog);
    assertThatThrownBy(() -> new LocationRules(List.of("s3://bucket/lake/"), null).validate(catalog))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("scheme 's3'");
    assertThatThrownBy(() -> new LocationRules(List.of("/lake/../x"), null)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void restStorageServesItsFileIosSchemesNarrowedToTheWarehouse() {
    assertThat(CatalogStorage.rest(Map.of("io-impl", "org.apache.iceberg.aws.s3.S3FileIO")).schemes()).containsExactlyInAnyOrder("s3", "s3a", "s3n");
    assertThat(CatalogStorage.rest(Map.of()).schemes()).contains("file", "s3").doesNotContain("hdfs", "webhdfs", "ftp", "har", "http");
    assertThat(CatalogStorage.rest(Map.of("warehouse", "s3a://bucket/wh")).schemes()).containsExactlyInAnyOrder("s3", "s3a", "s3n");
    assertThat(CatalogStorage.rest(Map.of("warehouse", "analytics")).schemes()).contains("file", "s3");
    assertThat(CatalogStorage.rest(Map.of("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")).schemes()).containsExactly("file");
    assertThat(CatalogStorage.rest(Map.of("io-impl", "com.example.MyFileIO")).schemes()).isEmpty();
    assertThat(CatalogStorage.embedded(dir).catalogDirectory()).isEqualTo(Optional.of(dir.toUri().toString()));
  }
}
