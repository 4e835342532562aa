package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.GetSessionOptionsRequest;
import org.apache.arrow.flight.NoOpSessionOptionValueVisitor;
import org.apache.arrow.flight.SessionOptionValueFactory;
import org.apache.arrow.flight.SetSessionOptionsRequest;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server's {@code query.max-run-time} limits every statement: sessions that set no
 * statement_timeout run under it, and a session may lower it but neither raise nor lift it, by
 * SQL or by SetSessionOptions; what the session reports is the limit it runs under.
 */
class ServerStatementTimeoutTest {
  private static final String ENDLESS = "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void theServerLimitIsACeilingThatSessionsCanLowerButNotLift() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        TestServer server = TestServer.start(dir, Map.of("query.max-run-time", "2s"))) {
      NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 5_000);
      try (TestServer.Client client = server.client(allocator)) {
        assertTimesOutAfter(client, "2s");
        assertThat(statementTimeout(client)).isEqualTo("2s");

        for (String lifted : new String[] {"0", "1h"}) {
          client.sql().executeUpdate("SET statement_timeout = '" + lifted + "'", client.auth());
          assertThat(statementTimeout(client)).as("after SET %s", lifted).isEqualTo("2s");
          assertTimesOutAfter(client, "2s");
        }
        client.flight().setSessionOptions(
            new SetSessionOptionsRequest(Map.of("statement_timeout", SessionOptionValueFactory.makeSessionOptionValue(0L))),
            client.auth());
        assertThat(statementTimeout(client)).as("after SetSessionOptions 0").isEqualTo("2s");
        assertTimesOutAfter(client, "2s");

        client.sql().executeUpdate("SET statement_timeout = '500ms'", client.auth());
        assertThat(statementTimeout(client)).isEqualTo("500ms");
        assertTimesOutAfter(client, "500ms");
        RunningQueries.awaitNone(server, WAIT);
      }
    }
  }

  @Test
  void withoutAServerLimitASessionMaySetAnyOrNone() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        TestServer server = TestServer.start(dir, Map.of())) {
      NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 5_000);
      try (TestServer.Client client = server.client(allocator)) {
        assertThat(statementTimeout(client)).isEqualTo("0");
        client.sql().executeUpdate("SET statement_timeout = '1s'", client.auth());
        assertThat(statementTimeout(client)).isEqualTo("1s");
        assertTimesOutAfter(client, "1s");
        RunningQueries.awaitNone(server, WAIT);
      }
    }
  }

  private static void assertTimesOutAfter(TestServer.Client client, String limit) {
    FlightInfo info = client.sql().execute(ENDLESS, client.auth());
    // The client's own deadline only keeps a limit that does not hold from stalling the test.
    CallOption deadline = CallOptions.timeout(60, TimeUnit.SECONDS);
    assertThatThrownBy(() -> drain(client.sql().getStream(info.getEndpoints().get(0).getTicket(), client.auth(), deadline)))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT);
          assertThat(e.getMessage()).contains("statement timeout of " + limit).contains("query.max-run-time");
        });
  }

  private static String statementTimeout(TestServer.Client client) {
    return client.flight().getSessionOptions(new GetSessionOptionsRequest(), client.auth())
        .getSessionOptions()
        .get("statement_timeout")
        .acceptVisitor(new NoOpSessionOptionValueVisitor<String>() {
          @Override
          public String visit(String value) {
            return value;
          }
        });
  }
}
