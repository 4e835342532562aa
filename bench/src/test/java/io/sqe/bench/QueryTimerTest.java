package io.sqe.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class QueryTimerTest {
  @Test
  void cancelsAnExecutionThatOutlivesTheTimeout() {
    CountDownLatch cancelled = new CountDownLatch(1);
    Engine blocking = new FakeEngine(cancellation -> {
      cancellation.onCancel(cancelled::countDown);
      if (!cancelled.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("never cancelled");
      }
      throw new IllegalStateException("cancelled");
    });
    try (QueryTimer timer = new QueryTimer(Duration.ofMillis(200))) {
      Attempt attempt = timer.run(blocking, "select 1");

      assertThat(attempt.outcome()).isEqualTo(Attempt.Outcome.TIMEOUT);
      assertThat(attempt.message()).startsWith("exceeded 0 s").contains("client returned").contains("idle");
      assertThat(cancelled.getCount()).isZero();
    }
  }

  @Test
  void reportsAFailureAndTimesACompletedExecution() {
    try (QueryTimer timer = new QueryTimer(Duration.ofSeconds(10))) {
      Attempt failed = timer.run(new FakeEngine(c -> {
        throw new IllegalArgumentException("no such table\n  at line 1");
      }), "select 1");
      assertThat(failed.outcome()).isEqualTo(Attempt.Outcome.ERROR);
      assertThat(failed.message()).isEqualTo("IllegalArgumentException: no such table at line 1");

      Attempt completed = timer.run(new FakeEngine(c -> new ResultRows(List.of(List.of("x")), -1)), "select 1");
      assertThat(completed.completed()).isTrue();
      assertThat(completed.nanos()).isPositive();
      assertThat(completed.rows().size()).isEqualTo(1);
    }
  }

  private interface Body {
    ResultRows run(Cancellation cancellation) throws Exception;
  }

  private record FakeEngine(Body body) implements Engine {
    @Override
    public String name() {
      return "fake";
    }

    @Override
    public ResultRows execute(String sql, Cancellation cancellation) throws Exception {
      return body.run(cancellation);
    }

    @Override
    public void close() {}
  }
}
