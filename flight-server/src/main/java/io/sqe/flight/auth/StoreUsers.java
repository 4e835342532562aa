package io.sqe.flight.auth;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.users.LocalUsers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;

/** The user statements' view of the {@link UserStore}: each change locks, rewrites and publishes the users file. */
public final class StoreUsers implements LocalUsers {
  private final UserStore store;

  public StoreUsers(UserStore store) {
    this.store = requireNonNull(store, "store is null");
  }

  @Override
  public void checkName(String user) {
    UserStore.checkName(user);
  }

  @Override
  public void checkRoles(Set<String> roles) {
    UserStore.checkRoles(roles);
  }

  @Override
  public boolean create(String user, char[] password, Set<String> roles) {
    try {
      return store.addUser(user, password, roles);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean setPassword(String user, char[] password) {
    try {
      return store.setPassword(user, password);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean setRoles(String user, Set<String> roles) {
    try {
      return store.setRoles(user, roles);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public boolean drop(String user) {
    try {
      return store.removeUser(user);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
