package io.sqe.flight.auth;

import static java.util.Objects.requireNonNull;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Limits password guessing: after {@code maxFailures} failed logins for one user name, or from one
 * client address, within {@code lockout} of each other, further logins for that name or from that
 * address are refused unchecked until {@code lockout} has passed since the last failure. Counting
 * names that do not exist the same way as names that do keeps the throttle from revealing which
 * users exist. Both maps are bounded, so a flood of made-up names cannot exhaust memory.
 */
public final class LoginThrottle {
  private static final int MAX_TRACKED = 100_000;

  private final int maxFailures;
  private final Cache<String, AtomicInteger> users;
  private final Cache<String, AtomicInteger> addresses;

  public LoginThrottle(int maxFailures, Duration lockout, Clock clock) {
    if (maxFailures < 1) {
      throw new IllegalArgumentException("maxFailures must be at least 1");
    }
    requireNonNull(lockout, "lockout is null");
    requireNonNull(clock, "clock is null");
    this.maxFailures = maxFailures;
    Ticker ticker = () -> clock.millis() * 1_000_000L;
    this.users = Caffeine.newBuilder().ticker(ticker).expireAfterWrite(lockout).maximumSize(MAX_TRACKED).build();
    this.addresses = Caffeine.newBuilder().ticker(ticker).expireAfterWrite(lockout).maximumSize(MAX_TRACKED).build();
  }

  /** Whether a login for {@code user} from {@code address} (null when unknown) may be checked now. */
  public boolean allows(String user, String address) {
    return below(users, user) && (address == null || below(addresses, address));
  }

  public void failed(String user, String address) {
    count(users, user);
    if (address != null) {
      count(addresses, address);
    }
  }

  /** A successful login clears the user's count; the address keeps its count. */
  public void succeeded(String user) {
    users.invalidate(user);
  }

  private boolean below(Cache<String, AtomicInteger> counts, String key) {
    AtomicInteger count = counts.getIfPresent(key);
    return count == null || count.get() < maxFailures;
  }

  private static void count(Cache<String, AtomicInteger> counts, String key) {
    // Re-putting the entry restarts its expiry: the lockout runs from the latest failure.
    AtomicInteger count = counts.get(key, k -> new AtomicInteger());
    count.incrementAndGet();
    counts.put(key, count);
  }
}
