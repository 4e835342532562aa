package io.sqe.engine.session;

import static java.util.Objects.requireNonNull;

import java.util.Set;

/** Who runs a statement: an authenticated user and the roles granted to them. */
public record Principal(String user, Set<String> roles) {
  public Principal {
    requireNonNull(user, "user is null");
    roles = Set.copyOf(roles);
  }

  public static Principal of(String user) {
    return new Principal(user, Set.of());
  }
}
