package io.sqe.flight;

import static io.sqe.flight.QueryControlTest.drain;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.arrow.flight.CancelFlightInfoRequest;
import org.apache.arrow.flight.CancelStatus;
import org.apache.arrow.flight.FlightInfo;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server's {@code query.max-run-time} limits sessions that set no statement_timeout of their own. */
class ServerStatementTimeoutTest {
  private static final String ENDLESS = "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";
  private static final Duration WAIT = Duration.ofSeconds(10);

  @TempDir Path dir;

  @Test
  void theServerDefaultStopsLongQueriesUnlessTheSessionSetsItsOwnLimit() throws Exception {
    try (BufferAllocator allocator = new RootAllocator();
        TestServer server = TestServer.start(dir, Map.of("query.max-run-time", "1s"))) {
      NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 5_000);
      try (TestServer.Client client = server.client(allocator)) {
        FlightInfo limited = client.sql().execute(ENDLESS, client.auth());
        assertThatThrownBy(() -> drain(client.sql().getStream(limited.getEndpoints().get(0).getTicket(), client.auth())))
            .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
              assertThat(e.status().code()).isEqualTo(FlightStatusCode.TIMED_OUT);
              assertThat(e.getMessage()).contains("statement timeout of 1s").contains("query.max-run-time");
            });
        RunningQueries.awaitNone(server, WAIT);

        client.sql().executeUpdate("SET statement_timeout = '0'", client.auth());
        FlightInfo unlimited = client.sql().execute(ENDLESS, client.auth());
        try (FlightStream stream = client.sql().getStream(unlimited.getEndpoints().get(0).getTicket(), client.auth())) {
          RunningQueries.awaitOne(server, WAIT);
          Thread.sleep(3_000);
          assertThat(RunningQueries.of(server)).as("a query without a limit, past the server's").hasSize(1);
          assertThat(client.flight().cancelFlightInfo(new CancelFlightInfoRequest(unlimited), client.auth()).getStatus())
              .isEqualTo(CancelStatus.CANCELLED);
        }
        RunningQueries.awaitNone(server, WAIT);
      }
    }
  }
}
