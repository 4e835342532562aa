package io.sqe.flight.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.TestServer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightRuntimeException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Failed logins are limited per user name and per client address, on a real server. */
class LoginThrottleTest {
  @TempDir Path dir;
  private BufferAllocator allocator;
  private TestServer server;
  private FlightClient client;

  @BeforeEach
  void setUp() throws Exception {
    allocator = new RootAllocator();
    server = TestServer.start(dir, Map.of("auth.max-failed-logins", "3", "auth.lockout", "2s"));
    server.server().authentication().users().addUser("bob", "bob's password".toCharArray(), Set.of());
    client = FlightClient.builder(allocator, server.server().location()).build();
  }

  @AfterEach
  void tearDown() throws Exception {
    client.close();
    server.close();
    allocator.close();
  }

  @Test
  void aUserWithTooManyFailuresIsRefusedUntilTheLockoutPasses() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertRefused("bob", "wrong " + i, "Invalid username or password");
    }
    // The right password is not even checked now, and the answer says why.
    assertRefused("bob", "bob's password", "Too many failed logins");
    Thread.sleep(2_200);
    assertThat(client.authenticateBasicToken("bob", "bob's password")).isPresent();
  }

  @Test
  void anAddressGuessingManyNamesIsRefusedForEveryName() {
    // Names that do not exist count like names that do, so the throttle reveals nothing about users.
    assertRefused("nobody-1", "x", "Invalid username or password");
    assertRefused("nobody-2", "x", "Invalid username or password");
    assertRefused("bob", "wrong", "Invalid username or password");
    assertRefused(TestServer.ADMIN, server.adminPassword(), "Too many failed logins");
  }

  private void assertRefused(String user, String password, String message) {
    assertThatThrownBy(() -> client.authenticateBasicToken(user, password))
        .isInstanceOfSatisfying(FlightRuntimeException.class, e -> {
          assertThat(e.status().code()).isEqualTo(CallStatus.UNAUTHENTICATED.code());
          assertThat(e.getMessage()).contains(message).doesNotContain(password);
        });
  }
}
