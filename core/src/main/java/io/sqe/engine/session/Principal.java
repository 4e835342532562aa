package io.sqe.engine.session;

import static java.util.Objects.requireNonNull;

import java.util.Set;

/** Who runs a statement: an authenticated user and the roles granted to them. */
public record Principal(String user, Set<String> roles) {
  /** The role of administrators: they see and cancel every user's statements and manage users. */
  public static final String ADMIN_ROLE = "admin";

  public Principal {
    requireNonNull(user, "user is null");
    roles = Set.copyOf(roles);
  }

  public static Principal of(String user) {
    return new Principal(user, Set.of());
  }

  /** Whether this principal holds the {@value #ADMIN_ROLE} role. */
  public boolean isAdmin() {
    return roles.contains(ADMIN_ROLE);
  }
}
