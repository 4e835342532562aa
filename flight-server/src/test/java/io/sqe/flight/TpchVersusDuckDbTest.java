package io.sqe.flight;

import io.sqe.flight.testing.RestCatalogFixture;
import io.sqe.flight.testing.S3Fixture;
import io.sqe.flight.testing.TpchHarness;
import io.sqe.flight.testing.TestServer;
import io.sqe.sample.tpch.TpchQueries;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The 22 TPC-H queries at scale 0.01 through the Flight SQL JDBC driver, compared row by row with
 * DuckDB reading the same Parquet files, in both catalog modes.
 */
class TpchVersusDuckDbTest {
  static Stream<Integer> queries() {
    return TpchQueries.numbers().stream();
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class EmbeddedCatalog extends TpchHarness {
    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
      open(dir, Map.of());
    }

    @AfterAll
    void stop() throws Exception {
      close();
    }

    @ParameterizedTest(name = "Q{0}")
    @MethodSource("io.sqe.flight.TpchVersusDuckDbTest#queries")
    void matchesDuckDb(int query) throws Exception {
      compare("Q" + query, TpchQueries.query(query));
    }
  }

  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class RestCatalog extends TpchHarness {
    RestCatalogFixture rest;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
      rest = RestCatalogFixture.start(dir.resolve("rest"));
      open(dir.resolve("sqe"), rest.sqeSettings());
    }

    @AfterAll
    void stop() throws Exception {
      close();
      rest.close();
    }

    @ParameterizedTest(name = "Q{0}")
    @MethodSource("io.sqe.flight.TpchVersusDuckDbTest#queries")
    void matchesDuckDb(int query) throws Exception {
      compare("Q" + query, TpchQueries.query(query));
    }
  }

  /** Tables on an S3-compatible server (s3proxy), through a REST catalog whose warehouse is there. */
  @Nested
  @TestInstance(TestInstance.Lifecycle.PER_CLASS)
  class RestCatalogOnS3 extends TpchHarness {
    S3Fixture s3;
    RestCatalogFixture rest;

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
      s3 = S3Fixture.start(dir.resolve("s3"));
      rest = RestCatalogFixture.start(dir.resolve("rest"), s3.catalogBackend("rest"));
      open(dir.resolve("sqe"), S3Fixture.sqeSettings(rest, s3.fileIoProperties()), location -> s3.localPath(location).toString());
    }

    @AfterAll
    void stop() throws Exception {
      close();
      rest.close();
      s3.close();
    }

    @ParameterizedTest(name = "Q{0}")
    @MethodSource("io.sqe.flight.TpchVersusDuckDbTest#queries")
    void matchesDuckDb(int query) throws Exception {
      compare("Q" + query, TpchQueries.query(query));
    }
  }
}
