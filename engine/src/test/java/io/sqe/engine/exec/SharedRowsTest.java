package io.sqe.engine.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.linq4j.function.Function0;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Consumers on many threads share one computation of a subplan's rows, its failure, and their query's cancellation. */
class SharedRowsTest {
  private final ExecutorService threads = Executors.newFixedThreadPool(4);
  private final List<QueryRun> runs = new ArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    threads.shutdownNow();
    assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    runs.forEach(QueryRun::close);
  }

  @Test
  void consumersOnManyThreadsShareOneComputation() throws Exception {
    QueryContext context = context();
    AtomicInteger computed = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    Function0<Enumerable<Object>> rows = () -> {
      computed.incrementAndGet();
      await(release);
      return Linq4j.asEnumerable(List.<Object>of(1, 2, 3));
    };
    List<Future<List<Object>>> consumers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      consumers.add(threads.submit(() -> SharedRows.rows(context, "k", 100, rows).toList()));
    }
    release.countDown();
    for (Future<List<Object>> consumer : consumers) {
      assertThat(consumer.get(30, TimeUnit.SECONDS)).containsExactly(1, 2, 3);
    }
    // Read again in the same execution: the stored rows.
    assertThat(SharedRows.rows(context, "k", 100, rows).toList()).containsExactly(1, 2, 3);
    assertThat(computed).hasValue(1);
    // Another execution, or another key, computes its own.
    assertThat(SharedRows.rows(context(), "k", 100, rows).toList()).containsExactly(1, 2, 3);
    assertThat(SharedRows.rows(context, "other", 100, rows).toList()).containsExactly(1, 2, 3);
    assertThat(computed).hasValue(3);
  }

  @Test
  void theComputationsFailureIsEveryConsumers() throws Exception {
    QueryContext context = context();
    CountDownLatch release = new CountDownLatch(1);
    Function0<Enumerable<Object>> rows = () -> {
      await(release);
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Division by zero");
    };
    List<Future<List<Object>>> consumers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      consumers.add(threads.submit(() -> SharedRows.rows(context, "k", 100, rows).toList()));
    }
    release.countDown();
    for (Future<List<Object>> consumer : consumers) {
      assertThatThrownBy(() -> consumer.get(30, TimeUnit.SECONDS))
          .cause()
          .isInstanceOf(SqeException.class)
          .hasMessage("Division by zero");
    }
    assertThatThrownBy(() -> SharedRows.rows(context, "k", 100, rows).toList()).hasMessage("Division by zero");
  }

  @Test
  void aWaitingConsumerStopsWhenItsQueryIsCancelled() throws Exception {
    QueryContext context = context();
    CountDownLatch computing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Function0<Enumerable<Object>> rows = () -> {
      computing.countDown();
      await(release);
      return Linq4j.asEnumerable(List.<Object>of(1));
    };
    Future<List<Object>> computer = threads.submit(() -> SharedRows.rows(context, "k", 100, rows).toList());
    assertThat(computing.await(30, TimeUnit.SECONDS)).isTrue();
    Future<List<Object>> waiter = threads.submit(() -> SharedRows.rows(context, "k", 100, rows).toList());
    context.cancel(ErrorCode.CANCELLED, "cancelled by the test");
    assertThatThrownBy(() -> waiter.get(30, TimeUnit.SECONDS))
        .cause()
        .isInstanceOf(SqeException.class)
        .satisfies(e -> assertThat(((SqeException) e).code()).isEqualTo(ErrorCode.CANCELLED));
    release.countDown();
    assertThat(computer.get(30, TimeUnit.SECONDS)).containsExactly(1);
  }

  @Test
  void rowsPastTheBoundAreNotKept() {
    QueryContext context = context();
    AtomicInteger computed = new AtomicInteger();
    Function0<Enumerable<Object>> rows = () -> {
      computed.incrementAndGet();
      return Linq4j.asEnumerable(List.<Object>of(1, 2, 3, 4, 5));
    };
    // The first consumer streams on past the bound; the next computes its own.
    assertThat(SharedRows.rows(context, "k", 2, rows).toList()).containsExactly(1, 2, 3, 4, 5);
    assertThat(SharedRows.rows(context, "k", 2, rows).toList()).containsExactly(1, 2, 3, 4, 5);
    assertThat(computed).hasValue(2);
  }

  private QueryContext context() {
    QueryRun run = QueryRun.untracked("shared-rows-" + runs.size());
    runs.add(run);
    return new QueryContext(
        run.queryId(), CalciteSchema.createRootSchema(false).plus(), new SqeJavaTypeFactory(), Map.of(), run);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("not released");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
