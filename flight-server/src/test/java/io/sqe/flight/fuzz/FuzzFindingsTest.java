package io.sqe.flight.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link SqlFuzzTest} found and was fixed, each as the smallest statement that showed it, run
 * through a real server with the Flight SQL client. Every call has a deadline, so a statement that
 * never answers fails its test instead of blocking the run; after each test the server still
 * answers a query.
 */
class FuzzFindingsTest {
  private static final CallOption DEADLINE = CallOptions.timeout(30, TimeUnit.SECONDS);

  @TempDir static Path dir;
  private static TestServer server;
  private static BufferAllocator allocator;
  private static TestServer.Client client;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of());
    allocator = new RootAllocator();
    client = server.client(allocator);
    for (String sql : List.of(
        "CREATE SCHEMA fz",
        "CREATE TABLE fz.t (i INTEGER, s VARCHAR, m MAP(VARCHAR, INTEGER))",
        "INSERT INTO fz.t VALUES (1, 'a', MAP['a', 1]), (2, 'b', MAP['b', 2]), (NULL, NULL, NULL)")) {
      client.sql().executeUpdate(sql, client.auth(), DEADLINE);
    }
  }

  @AfterEach
  void theServerStillAnswers() throws Exception {
    assertThat(rows("SELECT count(*) FROM fz.t")).containsExactly(List.of(3L));
  }

  @AfterAll
  static void stop() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  /**
   * Calcite computes constant expressions once, in a static initializer of the plan's generated
   * class. When that failed, the plan cache (or a prepared statement) ran the same class again,
   * which the JVM then refuses with NoClassDefFoundError: the second run's stream never ended.
   */
  @Test
  void aConstantThatFailsFailsTheSameWayEveryRun() throws Exception {
    for (int run = 0; run < 3; run++) {
      assertError("SELECT i, 1 / 0 FROM fz.t", FlightStatusCode.INVALID_ARGUMENT, "Division by zero");
    }
    FlightSqlClient.PreparedStatement prepared = client.sql().prepare("SELECT i, 1 / 0 FROM fz.t", client.auth(), DEADLINE);
    try {
      for (int run = 0; run < 2; run++) {
        assertThatThrownBy(() -> rows(prepared.execute(client.auth(), DEADLINE)))
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).as(e.getMessage()).isEqualTo(FlightStatusCode.INVALID_ARGUMENT);
              assertThat(e.status().description()).contains("Division by zero");
            });
      }
    } finally {
      prepared.close(client.auth(), DEADLINE);
    }
  }

  /**
   * Plans that validate but that Calcite's code generator cannot compile failed as INTERNAL with
   * the whole plan in the message; they are not supported (yet), and the message says what the
   * generator missed instead of showing the plan.
   */
  @Test
  void whatTheCodeGeneratorCannotCompileIsNotSupported() {
    assertError("SELECT max(m) FROM fz.t", FlightStatusCode.UNIMPLEMENTED,
        "This statement cannot be planned yet: while resolving method 'greater[interface java.util.Map");
    assertError("SELECT i, CUME_DIST() OVER (ORDER BY i) FROM fz.t", FlightStatusCode.UNIMPLEMENTED,
        "This statement cannot be planned yet: Unable to get aggregate implementation for aggregate CUME_DIST");
  }

  /** The executor counts rows in an int: a larger LIMIT or OFFSET failed as INTERNAL when compiled. */
  @Test
  void aLimitOrOffsetPastTheIntegerRangeIsInvalid() throws Exception {
    assertError("SELECT i FROM fz.t LIMIT 2147483648", FlightStatusCode.INVALID_ARGUMENT,
        "LIMIT 2147483648 is more than 2147483647, the most SQE supports (line 1, column 26)");
    assertError("SELECT i FROM fz.t ORDER BY i OFFSET 9223372036854775807 ROWS", FlightStatusCode.INVALID_ARGUMENT,
        "OFFSET 9223372036854775807 is more than 2147483647");
    assertError("SELECT count(*) FROM (SELECT i FROM fz.t LIMIT 1 OFFSET 2147483648) AS q", FlightStatusCode.INVALID_ARGUMENT,
        "OFFSET 2147483648");
    assertThat(rows("SELECT i FROM fz.t ORDER BY i LIMIT 2147483647 OFFSET 2147483646")).isEmpty();
    assertThat(rows("SELECT i FROM fz.t ORDER BY i LIMIT 2147483647")).hasSize(3);
  }

  /** Calcite's runtime said "more than one value in agg SINGLE_VALUE", as INTERNAL. */
  @Test
  void aScalarSubQueryOfMoreThanOneRowIsInvalid() {
    assertError("SELECT i, (SELECT t2.i FROM fz.t AS t2 WHERE t2.i IS NOT NULL) FROM fz.t", FlightStatusCode.INVALID_ARGUMENT,
        "A scalar sub-query returned more than one row");
  }

  /**
   * A text that does not fit its date format and a regular expression that does not compile are
   * the statement's values, whether a row or a constant holds them; both were INTERNAL.
   */
  @Test
  void aTextThatDoesNotFitItsFormatAndABadRegularExpressionAreInvalid() {
    for (String sql : List.of("SELECT TO_DATE(s, 'HH12:MI AM') FROM fz.t", "SELECT TO_DATE('x', 'HH12:MI AM')")) {
      assertError(sql, FlightStatusCode.INVALID_ARGUMENT, "Invalid format: 'HH12:MI AM' for datetime string");
    }
    for (String sql : List.of("SELECT REGEXP_LIKE(s, 'a{2,1}') FROM fz.t", "SELECT REGEXP_LIKE('x', 'a{2,1}')")) {
      assertError(sql, FlightStatusCode.INVALID_ARGUMENT, "Invalid regular expression 'a{2,1}': Illegal repetition range");
    }
  }

  /**
   * An ESCAPE that is not one character, or an escape before a character that is not a wildcard
   * or itself: Calcite's LIKE refuses them with a plain RuntimeException, which was INTERNAL.
   */
  @Test
  void aBadLikeEscapeIsInvalid() {
    assertError("SELECT i FROM fz.t WHERE s LIKE 'a!%' ESCAPE 'ab'", FlightStatusCode.INVALID_ARGUMENT, "must be one character, not 'ab'");
    assertError("SELECT i FROM fz.t WHERE (s LIKE s ESCAPE '') IS FALSE", FlightStatusCode.INVALID_ARGUMENT, "must be one character, not ''");
    assertError("SELECT i FROM fz.t WHERE upper(s) LIKE 'x\\y' ESCAPE '\\'", FlightStatusCode.INVALID_ARGUMENT, "Invalid LIKE pattern");
    assertError("SELECT 'x' LIKE 'x' ESCAPE 'ab'", FlightStatusCode.INVALID_ARGUMENT, "must be one character, not 'ab'");
  }

  /** Calcite's SIMILAR TO refuses a pattern that is no regular expression with a plain RuntimeException. */
  @Test
  void aSimilarToPatternThatDoesNotCompileIsInvalid() {
    assertError("SELECT i FROM fz.t WHERE s SIMILAR TO '['", FlightStatusCode.INVALID_ARGUMENT, "Invalid regular expression '[', index 1");
  }

  /**
   * VALUES rows of maps whose values widen (INTEGER in one row, DECIMAL in another) keep the
   * narrower row's Integer objects; the write cast each value to BigDecimal, which failed as
   * INTERNAL, where arrays said which value does not fit.
   */
  @Test
  void mapValuesThatWidenAcrossValuesRowsAreWrittenOrRefusedByValue() throws Exception {
    client.sql().executeUpdate("CREATE TABLE fz.maps (k INTEGER, m MAP(VARCHAR, INTEGER))", client.auth(), DEADLINE);
    assertError("INSERT INTO fz.maps VALUES (1, MAP['a', 1]), (2, MAP['b', 99999999999999999999])", FlightStatusCode.INVALID_ARGUMENT,
        "Value 99999999999999999999 is out of range for column m.value of type int");
    client.sql().executeUpdate("INSERT INTO fz.maps VALUES (1, MAP['a', 1]), (2, MAP['b', 2.0])", client.auth(), DEADLINE);
    assertThat(rows("SELECT k, coalesce(m['a'], m['b']) FROM fz.maps ORDER BY k")).containsExactly(List.of(1, 1), List.of(2, 2));
  }

  /**
   * Calcite's interpreter compiles the filter it pushes into an information_schema table when the
   * query starts; what its code generator cannot compile failed as INTERNAL, and is not supported.
   */
  @Test
  void anInformationSchemaFilterTheInterpreterCannotCompileIsNotSupported() {
    for (String sql : List.of(
        "SELECT table_name FROM information_schema.columns WHERE CAST(NULL AS ROW(a INTEGER, b VARCHAR)) IS DISTINCT FROM ROW(-42, 'x')",
        "SELECT table_name FROM information_schema.columns WHERE CAST(CAST(99999999999.99 AS DECIMAL(38, 10)) AS BOOLEAN)")) {
      assertError(sql, FlightStatusCode.UNIMPLEMENTED, "This statement cannot be run yet: ");
    }
  }

  /** Calcite's OVERLAY cuts the string at the position as given, past its end too. */
  @Test
  void anOverlayPastTheEndOfItsStringIsInvalid() {
    assertError("SELECT OVERLAY('ab' PLACING 'xyz' FROM 5)", FlightStatusCode.INVALID_ARGUMENT, "begin 0, end 4, length 2");
    assertError("SELECT i, OVERLAY(RIGHT(s, i) PLACING 'xyz' FROM 4) FROM fz.t", FlightStatusCode.INVALID_ARGUMENT, "length");
  }

  /** Maps have no order; sorting by one failed in Calcite's comparator as INTERNAL. */
  @Test
  void sortingByAMapIsInvalid() {
    for (String sql : List.of(
        "SELECT i FROM fz.t ORDER BY m",
        "SELECT t.i, t.m FROM fz.t AS t LEFT JOIN fz.t AS u ON t.i = u.i ORDER BY 2 DESC",
        "SELECT i, row_number() OVER (ORDER BY m) FROM fz.t",
        "SELECT array_agg(i ORDER BY m) FROM fz.t")) {
      assertError(sql, FlightStatusCode.INVALID_ARGUMENT, "Cannot sort by a value of type (VARCHAR, INTEGER) MAP: maps have no order");
    }
  }

  private static List<List<Object>> rows(String sql) throws Exception {
    return rows(client.sql().execute(sql, client.auth(), DEADLINE));
  }

  /** Every row of {@code info}'s result, read with the deadline. */
  private static List<List<Object>> rows(FlightInfo info) throws Exception {
    List<List<Object>> rows = new ArrayList<>();
    try (FlightStream stream = client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth(), DEADLINE)) {
      while (stream.next()) {
        VectorSchemaRoot root = stream.getRoot();
        for (int r = 0; r < root.getRowCount(); r++) {
          List<Object> row = new ArrayList<>();
          for (FieldVector vector : root.getFieldVectors()) {
            row.add(vector.getObject(r));
          }
          rows.add(row);
        }
      }
    }
    return rows;
  }

  private static void assertError(String sql, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> rows(sql))
        .as(sql)
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).as("%s: %s", sql, e.getMessage()).isEqualTo(code);
          assertThat(e.status().description()).as(sql).contains(message);
        });
  }
}
