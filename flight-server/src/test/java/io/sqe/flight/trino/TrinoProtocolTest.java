package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trino's client protocol spoken by hand: what the real clients rely on but do not show, such as
 * status codes, the nextUri's tokens, who may follow them, error objects and session headers.
 */
class TrinoProtocolTest {
  private static final String SLOW_QUERY =
      "SELECT count(*) FROM iceberg.tpch.lineitem a, iceberg.tpch.lineitem b WHERE a.l_comment < b.l_comment";
  private static final String BOB_PASSWORD = "bob-password-1";

  @TempDir static Path dir;
  private static TrinoFixture trino;
  private static RawTrinoClient client;
  private static Map<String, String> admin;
  private static Map<String, String> bob;

  @BeforeAll
  static void start() throws Exception {
    trino = TrinoFixture.start(dir, Map.of("sample-data.tpch-scale", "0.01", "trino.client-timeout", "2s"));
    client = new RawTrinoClient(trino.baseUri(), trino.caCertificate());
    admin = Map.of("Authorization", RawTrinoClient.basic(TestServer.ADMIN, trino.server().adminPassword()), "X-Trino-User", TestServer.ADMIN);
    bob = Map.of("Authorization", RawTrinoClient.basic("bob", BOB_PASSWORD), "X-Trino-User", "bob");
    assertFinished(client.run("CREATE USER bob PASSWORD '" + BOB_PASSWORD + "'", admin));
  }

  @AfterAll
  static void stop() throws Exception {
    trino.close();
  }

  @Test
  void aStatementAnswersAtOnceAndPagesThroughNextUri() throws Exception {
    List<RawTrinoClient.Response> responses = client.run("SELECT 1 AS n, 'a' AS letter, CAST(2.50 AS DECIMAL(4, 2)) AS price", admin);
    JsonNode first = responses.get(0).json();
    assertThat(first.get("stats").get("state").asText()).isEqualTo("QUEUED");
    assertThat(first.get("nextUri").asText()).startsWith(trino.baseUri() + "/v1/statement/executing/" + first.get("id").asText() + "/");
    JsonNode last = assertFinished(responses);
    JsonNode columns = last.get("columns");
    assertThat(columns.get(0).get("type").asText()).isEqualTo("integer");
    assertThat(columns.get(2).get("type").asText()).isEqualTo("decimal(4,2)");
    assertThat(columns.get(2).get("typeSignature").toString())
        .isEqualTo("{\"rawType\":\"decimal\",\"arguments\":[{\"kind\":\"LONG\",\"value\":4},{\"kind\":\"LONG\",\"value\":2}]}");
    assertThat(columns.get(1).get("typeSignature").toString())
        .isEqualTo("{\"rawType\":\"varchar\",\"arguments\":[{\"kind\":\"LONG\",\"value\":2147483647}]}");
    assertThat(data(responses).toString()).isEqualTo("[[1,\"a\",\"2.50\"]]");
  }

  @Test
  void requestsWithoutCredentialsAreChallenged() throws Exception {
    RawTrinoClient.Response response = client.post("SELECT 1", Map.of("X-Trino-User", "admin"));
    assertThat(response.status()).isEqualTo(401);
    assertThat(response.header("WWW-Authenticate")).contains("Basic realm=\"SQE\"");
    RawTrinoClient.Response wrong = client.post("SELECT 1", Map.of("Authorization", RawTrinoClient.basic(TestServer.ADMIN, "wrong")));
    assertThat(wrong.status()).isEqualTo(401);
    assertThat(wrong.body()).doesNotContain("wrong");
  }

  @Test
  void aUserHeaderNamingSomeoneElseIsRefused() throws Exception {
    Map<String, String> impersonating = new HashMap<>(bob);
    impersonating.put("X-Trino-User", TestServer.ADMIN);
    RawTrinoClient.Response response = client.post("SELECT 1", impersonating);
    assertThat(response.status()).isEqualTo(403);
    assertThat(response.body()).contains("cannot impersonate");
  }

  @Test
  void nextUrisBelongToTheirUserAndAreAnsweredInSequence() throws Exception {
    RawTrinoClient.Response started = client.post("SELECT 42", admin);
    String next = started.json().get("nextUri").asText();
    assertThat(client.get(next, bob).status()).isEqualTo(403);
    String[] parts = next.split("/");
    String wrongSlug = next.replace("/" + parts[parts.length - 2] + "/", "/" + "0".repeat(32) + "/");
    assertThat(client.get(wrongSlug, admin).status()).isEqualTo(404);
    String skipped = next.substring(0, next.lastIndexOf('/') + 1) + "7";
    assertThat(client.get(skipped, admin).status()).isEqualTo(410);

    RawTrinoClient.Response first = client.get(next, admin);
    // A client that lost the response asks again and gets the same one.
    RawTrinoClient.Response again = client.get(next, admin);
    assertThat(again.body()).isEqualTo(first.body());
  }

  @Test
  void deleteCancelsARunningStatement() throws Exception {
    RawTrinoClient.Response started = client.post(SLOW_QUERY, admin);
    String next = started.json().get("nextUri").asText();
    RawTrinoClient.Response running = client.get(next, admin);
    assertThat(running.json().get("stats").get("state").asText()).isEqualTo("RUNNING");
    assertThat(client.delete(running.json().get("nextUri").asText(), admin).status()).isEqualTo(204);
    JsonNode error = followToTheEnd(running).get("error");
    assertThat(error.get("errorName").asText()).isEqualTo("USER_CANCELED");
    assertThat(error.get("errorType").asText()).isEqualTo("USER_ERROR");
  }

  @Test
  void errorsHaveTrinosNamesTypesAndLocations() throws Exception {
    JsonNode syntax = last(client.run("SELECT 1,\n  FROM", admin)).get("error");
    assertThat(syntax.get("errorName").asText()).isEqualTo("SYNTAX_ERROR");
    assertThat(syntax.get("errorCode").asInt()).isEqualTo(1);
    assertThat(syntax.get("errorType").asText()).isEqualTo("USER_ERROR");
    assertThat(syntax.get("errorLocation").get("lineNumber").asInt()).isEqualTo(2);
    assertThat(syntax.get("errorLocation").get("columnNumber").asInt()).isEqualTo(3);
    assertThat(syntax.get("failureInfo").get("stack")).isEmpty();

    JsonNode missing = last(client.run("SELECT * FROM iceberg.tpch.no_such_table", admin)).get("error");
    assertThat(missing.get("errorName").asText()).isEqualTo("TABLE_NOT_FOUND");
    assertThat(missing.get("errorCode").asInt()).isEqualTo(46);
  }

  @Test
  void sessionChangesComeBackAsHeaders() throws Exception {
    List<RawTrinoClient.Response> use = client.run("USE iceberg.tpch", admin);
    assertFinished(use);
    assertThat(last(use, "X-Trino-Set-Schema")).containsExactly("tpch");
    assertThat(last(use, "X-Trino-Set-Catalog")).isEmpty();

    List<RawTrinoClient.Response> set = client.run("SET SESSION statement_timeout = '42s'", admin);
    assertFinished(set);
    assertThat(last(set, "X-Trino-Set-Session")).containsExactly("statement_timeout=42s");

    // The client sends the session back with each statement; an unknown property fails the statement.
    Map<String, String> withProperty = new HashMap<>(admin);
    withProperty.put("X-Trino-Session", "no_such_property=1");
    JsonNode error = last(client.run("SELECT 1", withProperty)).get("error");
    assertThat(error.get("message").asText()).contains("no_such_property");
  }

  @Test
  void preparedStatementsTravelInHeaders() throws Exception {
    List<RawTrinoClient.Response> prepare = client.run("PREPARE pick FROM SELECT ? + 1, 'a,b'", admin);
    assertThat(assertFinished(prepare).get("updateType").asText()).isEqualTo("PREPARE");
    assertThat(last(prepare, "X-Trino-Added-Prepare")).containsExactly("pick=SELECT+%3F+%2B+1%2C+%27a%2Cb%27");

    Map<String, String> withStatement = new HashMap<>(admin);
    withStatement.put("X-Trino-Prepared-Statement", "pick=SELECT+%3F+%2B+1%2C+%27a%2Cb%27");
    List<RawTrinoClient.Response> execute = client.run("EXECUTE pick USING INTEGER '41'", withStatement);
    assertFinished(execute);
    assertThat(data(execute).toString()).isEqualTo("[[42,\"a,b\"]]");
    List<RawTrinoClient.Response> describe = client.run("DESCRIBE INPUT pick", withStatement);
    assertThat(data(describe).toString()).isEqualTo("[[1,\"integer\"]]");

    List<RawTrinoClient.Response> deallocate = client.run("DEALLOCATE PREPARE pick", withStatement);
    assertFinished(deallocate);
    assertThat(last(deallocate, "X-Trino-Deallocated-Prepare")).containsExactly("pick");
    assertThat(last(client.run("EXECUTE pick USING 1", admin)).get("error").get("errorName").asText()).isEqualTo("NOT_FOUND");
  }

  @Test
  void transactionsAreHeldByIdForTheirUser() throws Exception {
    assertFinished(client.run("CREATE TABLE iceberg.tpch.protocol_txn (id INTEGER)", admin));
    List<RawTrinoClient.Response> begin = client.run("START TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE", admin);
    assertFinished(begin);
    List<String> started = last(begin, "X-Trino-Started-Transaction-Id");
    assertThat(started).hasSize(1);
    Map<String, String> inTransaction = new HashMap<>(admin);
    inTransaction.put("X-Trino-Transaction-Id", started.get(0));
    assertFinished(client.run("INSERT INTO iceberg.tpch.protocol_txn VALUES (1)", inTransaction));

    Map<String, String> bobInTransaction = new HashMap<>(bob);
    bobInTransaction.put("X-Trino-Transaction-Id", started.get(0));
    assertThat(last(client.run("SELECT 1", bobInTransaction)).get("error").get("errorName").asText()).isEqualTo("PERMISSION_DENIED");
    assertThat(count("SELECT count(*) FROM iceberg.tpch.protocol_txn", admin)).isZero();

    List<RawTrinoClient.Response> commit = client.run("COMMIT", inTransaction);
    assertFinished(commit);
    assertThat(last(commit, "X-Trino-Clear-Transaction-Id")).hasSize(1);
    assertThat(count("SELECT count(*) FROM iceberg.tpch.protocol_txn", admin)).isEqualTo(1);
    assertThat(last(client.run("SELECT 1", inTransaction)).get("error").get("errorName").asText()).isEqualTo("NOT_FOUND");

    List<RawTrinoClient.Response> serializable = client.run("START TRANSACTION ISOLATION LEVEL SERIALIZABLE", admin);
    assertThat(last(serializable).get("error").get("errorName").asText()).isEqualTo("NOT_SUPPORTED");
  }

  @Test
  void anAbandonedStatementIsCancelled() throws Exception {
    RawTrinoClient.Response started = client.post(SLOW_QUERY, admin);
    String id = started.json().get("id").asText();
    client.get(started.json().get("nextUri").asText(), admin);
    // The client never asks again: after the client timeout (2 s here) the statement is cancelled.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (isListed(id)) {
      assertThat(System.nanoTime()).as("query %s still running", id).isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static boolean isListed(String id) throws Exception {
    JsonNode data = data(client.run("SHOW QUERIES", admin));
    for (JsonNode row : data) {
      if (row.get(0).asText().equals(id)) {
        return true;
      }
    }
    return false;
  }

  private static long count(String sql, Map<String, String> headers) throws Exception {
    List<RawTrinoClient.Response> responses = client.run(sql, headers);
    assertFinished(responses);
    return data(responses).get(0).get(0).asLong();
  }

  private static JsonNode followToTheEnd(RawTrinoClient.Response from) throws Exception {
    RawTrinoClient.Response response = from;
    while (response.json().hasNonNull("nextUri")) {
      response = client.get(response.json().get("nextUri").asText(), admin);
    }
    return response.json();
  }

  private static JsonNode assertFinished(List<RawTrinoClient.Response> responses) {
    JsonNode last = last(responses);
    assertThat(last.get("error")).as("error of %s", last).isNull();
    assertThat(last.get("stats").get("state").asText()).isEqualTo("FINISHED");
    return last;
  }

  private static JsonNode last(List<RawTrinoClient.Response> responses) {
    RawTrinoClient.Response response = responses.get(responses.size() - 1);
    assertThat(response.status()).as("status of %s", response.body()).isEqualTo(200);
    return response.json();
  }

  private static List<String> last(List<RawTrinoClient.Response> responses, String header) {
    return responses.get(responses.size() - 1).header(header);
  }

  private static JsonNode data(List<RawTrinoClient.Response> responses) {
    com.fasterxml.jackson.databind.node.ArrayNode rows = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
    for (RawTrinoClient.Response response : responses) {
      JsonNode data = response.json().get("data");
      if (data != null) {
        data.forEach(rows::add);
      }
    }
    return rows;
  }
}
