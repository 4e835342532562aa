package io.sqe.write.dml;

import io.sqe.catalog.IcebergCatalogFactory;
import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The write path's differential test ({@link DmlVersusDuckDbTest}: random CREATE, INSERT, UPDATE,
 * DELETE and MERGE against DuckDB) with the tables in a real Iceberg REST catalog whose warehouse
 * is on a real S3-compatible server: every data and metadata file goes through S3FileIO. Fewer
 * statements than on the embedded catalog, to keep the build short; {@code
 * -Dsqe.dml.s3-statements=...} runs more, {@code -Dsqe.dml.seed=...} replays a seed.
 */
class DmlVersusDuckDbOnS3Test {
  private static final int STATEMENTS = Integer.getInteger("sqe.dml.s3-statements", 100);

  @TempDir Path dir;

  @Test
  void randomStatementsOverRestAndS3AgreeWithDuckDb() throws Exception {
    try (S3Fixture s3 = S3Fixture.start(dir.resolve("s3"));
        RestCatalogFixture rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("dml"))) {
      Map<String, String> properties = new HashMap<>(s3.fileIoProperties());
      properties.put("uri", rest.uri());
      try (Lakehouse lake = new Lakehouse(IcebergCatalogFactory.rest("lake", properties, Duration.ofMinutes(5)));
          ReferenceDuckDb duck = new ReferenceDuckDb(location -> s3.localPath(location).toString())) {
        DmlVersusDuckDbTest.run("DmlVersusDuckDbOnS3Test", lake, duck, STATEMENTS);
      }
    }
  }
}
