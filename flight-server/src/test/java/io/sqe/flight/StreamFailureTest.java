package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EngineConfig;
import io.sqe.engine.exec.QueryContext;
import io.sqe.engine.exec.QueryExecution;
import io.sqe.engine.exec.QueryExecutions;
import io.sqe.engine.exec.QueryRun;
import io.sqe.engine.exec.QueryTracker;
import io.sqe.engine.session.Principal;
import io.sqe.flight.audit.StatementAudit;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.arrow.flight.CallOptions;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.flight.FlightServer;
import org.apache.arrow.flight.FlightStatusCode;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.NoOpFlightProducer;
import org.apache.arrow.flight.Ticket;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.linq4j.Enumerator;
import org.apache.calcite.tools.Frameworks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Whatever a query's thread meets while it streams (an OutOfMemoryError, a StackOverflowError, a
 * LinkageError, a plan that never looks at its cancel flag), the client's DoGet ends with a status
 * that names the query, and the streamer goes on serving. The streamer runs behind a real Flight
 * server and client; only the plans are made up, since no SQL reliably throws an Error.
 */
class StreamFailureTest {
  private static final Schema SCHEMA = new Schema(List.of(Field.nullable("n", new ArrowType.Int(64, true))));
  /** Far past anything below: a stream the server never ends fails the test, not hangs it. */
  private static final Duration CLIENT_DEADLINE = Duration.ofSeconds(60);

  private BufferAllocator allocator;
  private QueryTracker queries;
  private HeapGuard heap;
  private ResultStreamer streamer;
  private FlightServer server;
  private FlightClient client;
  private final Map<String, Query> plans = new ConcurrentHashMap<>();
  private final CountDownLatch release = new CountDownLatch(1);

  /** A made-up query: its plan and its statement timeout. */
  private record Query(Supplier<Enumerator<Object>> plan, Duration timeout) {}

  @BeforeEach
  void start() throws Exception {
    allocator = new RootAllocator();
    queries = new QueryTracker();
    heap = HeapGuard.start(0, queries);
    streamer = new ResultStreamer(allocator, heap);
    server = FlightServer.builder(allocator, Location.forGrpcInsecure("127.0.0.1", 0), new NoOpFlightProducer() {
      @Override
      public void getStream(CallContext context, Ticket ticket, ServerStreamListener listener) {
        String queryId = new String(ticket.getBytes(), StandardCharsets.UTF_8);
        Query query = plans.get(queryId);
        Iterator<Supplier<QueryExecution>> executions = List.<Supplier<QueryExecution>>of(() -> execution(queryId, query)).iterator();
        streamer.start(SCHEMA, executions, listener, queryId, QueryTrailers.current(), StatementAudit.NONE, () -> { });
      }
    }).build().start();
    client = FlightClient.builder(allocator, Location.forGrpcInsecure("127.0.0.1", server.getPort())).build();
  }

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    // After each failure, the streamer still streams.
    assertThat(read(query("after", rows(3), Duration.ZERO))).containsExactly(0L, 1L, 2L);
    client.close();
    server.close();
    streamer.close();
    heap.close();
    queries.close();
    allocator.close();
  }

  @Test
  void anOutOfMemoryErrorIsResourceExhaustedNamingTheQuery() {
    String id = query("oom", failingAfter(2, () -> new OutOfMemoryError("Java heap space")), Duration.ZERO);
    assertStatus(id, FlightStatusCode.RESOURCE_EXHAUSTED, "Query " + id + " ran out of heap memory");
  }

  @Test
  void anErrorBeforeTheFirstRowIsAStatusToo() {
    String id = query("early", failingAfter(0, () -> new OutOfMemoryError("Java heap space")), Duration.ZERO);
    assertStatus(id, FlightStatusCode.RESOURCE_EXHAUSTED, "Query " + id + " ran out of heap memory");
  }

  @Test
  void aStackOverflowIsInvalidArgumentNamingTheQuery() {
    String id = query("deep", failingAfter(1, StackOverflowError::new), Duration.ZERO);
    assertStatus(id, FlightStatusCode.INVALID_ARGUMENT, "Query " + id + " nests too deeply");
  }

  @Test
  void aLinkageErrorIsInternalNamingTheQuery() {
    String id = query("linkage", failingAfter(1, () -> new NoClassDefFoundError("io/sqe/Missing")), Duration.ZERO);
    assertStatus(id, FlightStatusCode.INTERNAL, "Internal error in query " + id);
  }

  @Test
  void theStatementTimeoutEndsAStreamWhosePlanNeverChecksForIt() {
    // The plan blocks without looking at its cancel flag: only the stream's watchdog can answer.
    String id = query("stuck", () -> new Rows(Long.MAX_VALUE) {
      @Override
      public boolean moveNext() {
        awaitRelease();
        return false;
      }
    }, Duration.ofSeconds(1));
    assertStatus(id, FlightStatusCode.TIMED_OUT, "Query " + id + " exceeded its statement timeout of 1s");
  }

  private String query(String name, Supplier<Enumerator<Object>> plan, Duration timeout) {
    String id = name + "-" + plans.size();
    plans.put(id, new Query(plan, timeout));
    return id;
  }

  private void assertStatus(String queryId, FlightStatusCode code, String message) {
    assertThatThrownBy(() -> read(queryId)).isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
      assertThat(e.status().code()).as(e.getMessage()).isEqualTo(code);
      assertThat(e.getMessage()).contains(message);
    });
  }

  private List<Long> read(String queryId) throws Exception {
    List<Long> values = new ArrayList<>();
    Ticket ticket = new Ticket(queryId.getBytes(StandardCharsets.UTF_8));
    try (FlightStream stream = client.getStream(ticket, CallOptions.timeout(CLIENT_DEADLINE.toSeconds(), TimeUnit.SECONDS))) {
      while (stream.next()) {
        BigIntVector n = (BigIntVector) stream.getRoot().getVector(0);
        for (int i = 0; i < stream.getRoot().getRowCount(); i++) {
          values.add(n.get(i));
        }
      }
    }
    return values;
  }

  private QueryExecution execution(String queryId, Query query) {
    QueryRun run = queries.begin(queryId, Principal.of("test"), "select n from made_up", query.timeout());
    QueryContext context = new QueryContext(queryId, Frameworks.createRootSchema(false), new JavaTypeFactoryImpl(), Map.of(), run);
    return QueryExecutions.start(
        allocator.newChildAllocator("query-" + queryId, 0, Long.MAX_VALUE), context, SCHEMA, query.plan(), EngineConfig.DEFAULT.batchLimits());
  }

  private void awaitRelease() {
    try {
      release.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Supplier<Enumerator<Object>> rows(long count) {
    return () -> new Rows(count);
  }

  /** A plan that returns {@code rows} rows, then throws what {@code error} makes. */
  private static Supplier<Enumerator<Object>> failingAfter(long rows, Supplier<Error> error) {
    return () -> new Rows(Long.MAX_VALUE) {
      @Override
      public boolean moveNext() {
        if (next == rows) {
          throw error.get();
        }
        return super.moveNext();
      }
    };
  }

  /** The rows 0, 1, ... up to a count. */
  private static class Rows implements Enumerator<Object> {
    private final long count;
    long next;

    Rows(long count) {
      this.count = count;
    }

    @Override
    public Object current() {
      return next - 1;
    }

    @Override
    public boolean moveNext() {
      if (next >= count) {
        return false;
      }
      next++;
      return true;
    }

    @Override
    public void reset() {
      next = 0;
    }

    @Override
    public void close() {}
  }
}
