package io.sqe.flight.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.sqe.engine.session.Principal;
import io.sqe.flight.console.ConsoleLogins.Login;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Console logins on a hand-moved clock: they end when unused, and at the latest after their lifetime. */
class ConsoleLoginsTest {
  private final AtomicLong nanos = new AtomicLong();
  private final ConsoleLogins logins = new ConsoleLogins(nanos::get);

  @Test
  void aLoginIsFoundByItsCookieUntilItIsUnusedForTheIdleTime() {
    Login login = logins.start(Principal.of("alice"));
    assertThat(logins.find(List.of("other=1; " + ConsoleLogins.COOKIE + "=" + login.id()))).contains(login);
    assertThat(logins.find(List.of(ConsoleLogins.COOKIE + "=someone-elses"))).isEmpty();
    assertThat(logins.find(null)).isEmpty();
    advance(ConsoleLogins.IDLE.minusMinutes(1));
    assertThat(logins.find(List.of(ConsoleLogins.COOKIE + "=" + login.id()))).contains(login);
    advance(ConsoleLogins.IDLE.plusSeconds(1));
    assertThat(logins.find(List.of(ConsoleLogins.COOKIE + "=" + login.id()))).isEmpty();
  }

  @Test
  void aPagePollingEverySecondDoesNotKeepALoginPastItsLifetime() {
    Login login = logins.start(Principal.of("alice"));
    long polls = ConsoleLogins.LIFETIME.toMinutes();
    for (long minute = 1; minute < polls; minute++) {
      advance(Duration.ofMinutes(1));
      assertThat(logins.find(List.of(ConsoleLogins.COOKIE + "=" + login.id()))).as("minute %d", minute).contains(login);
    }
    advance(Duration.ofMinutes(2));
    assertThat(logins.find(List.of(ConsoleLogins.COOKIE + "=" + login.id()))).isEmpty();
  }

  @Test
  void aFormsTokenMustBeTheLoginsOwn() {
    Login login = logins.start(Principal.of("alice"));
    Login other = logins.start(Principal.of("bob"));
    assertThat(login.id()).isNotEqualTo(other.id()).hasSizeGreaterThanOrEqualTo(43);
    assertThat(login.csrfMatches(login.csrfToken())).isTrue();
    assertThat(login.csrfMatches(other.csrfToken())).isFalse();
    assertThat(login.csrfMatches(null)).isFalse();
    assertThat(login.csrfMatches("")).isFalse();
  }

  private void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
