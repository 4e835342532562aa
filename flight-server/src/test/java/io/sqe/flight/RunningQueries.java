package io.sqe.flight;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.flight.testing.TestServer;
import java.time.Duration;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;

/** The queries a server is running, seen through the child allocators of its root allocator. */
final class RunningQueries {
  private RunningQueries() {}

  static List<BufferAllocator> of(TestServer server) {
    return server.server().allocator().getChildAllocators().stream()
        .filter(a -> a.getName().startsWith("query-"))
        .toList();
  }

  /** Waits until the server runs no query, failing after {@code timeout}. */
  static void awaitNone(TestServer server, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!of(server).isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(of(server)).as("queries still running after %s", timeout).isEmpty();
  }

  /** Waits until the server runs exactly one query and returns its allocator. */
  static BufferAllocator awaitOne(TestServer server, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (of(server).size() != 1 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(of(server)).as("running queries").hasSize(1);
    return of(server).get(0);
  }
}
