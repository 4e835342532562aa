package io.sqe.flight.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shutdown as Trino's clients see it: new statements are refused at once (503), while a
 * statement already running goes on within the grace period and its client fetches every row.
 */
class TrinoShutdownTest {
  @TempDir Path dir;

  @Test
  void aRunningStatementFinishesWithinTheGracePeriodWhileNewOnesAreRefused() throws Exception {
    int rows = 25_000;
    TrinoFixture trino = TrinoFixture.start(dir, Map.of("server.shutdown-grace-period", "5m"));
    NumberTable.create(trino.server().server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", rows, 5_000);
    RawTrinoClient client = new RawTrinoClient(trino.baseUri(), trino.caCertificate());
    Map<String, String> admin = Map.of("Authorization", RawTrinoClient.basic(TestServer.ADMIN, trino.server().adminPassword()));
    CompletableFuture<Void> closing = null;
    try {
      // About 50 MB of JSON: far more than waits for a client, so the statement runs while this one does not fetch.
      String wide = String.join(" || ", Collections.nCopies(20, "label"));
      RawTrinoClient.Response response = client.post("SELECT n, " + wide + " AS wide FROM iceberg.s.numbers", admin);
      long read = 0;
      response = client.get(response.json().get("nextUri").asText(), admin);
      while (!response.json().has("data")) {
        response = client.get(response.json().get("nextUri").asText(), admin);
      }
      read += response.json().get("data").size();
      assertThat(read).isLessThan(rows);

      closing = CompletableFuture.runAsync(() -> close(trino));
      awaitRefusal(client, admin);
      assertThat(closing).isNotDone();

      while (response.json().hasNonNull("nextUri")) {
        response = client.get(response.json().get("nextUri").asText(), admin);
        JsonNode json = response.json();
        assertThat(json.get("error")).as("error of %s", json.get("id")).isNull();
        if (json.has("data")) {
          read += json.get("data").size();
        }
      }
      assertThat(read).as("every row of the statement that was running").isEqualTo(rows);
      closing.get(60, TimeUnit.SECONDS);
    } finally {
      if (closing == null) {
        trino.close();
      }
    }
  }

  private static void awaitRefusal(RawTrinoClient client, Map<String, String> admin) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (client.post("SELECT 1", admin).status() != 503) {
      assertThat(System.nanoTime()).as("new statements refused").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  private static void close(TrinoFixture trino) {
    try {
      trino.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
