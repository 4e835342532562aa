package io.sqe.engine.users;

import java.util.Set;

/**
 * The users whose passwords SQE keeps, as CREATE USER, ALTER USER and DROP USER change them. The
 * server implements it over its user store; changes must be durable when a method returns.
 */
public interface LocalUsers {
  /** Checks a user name; throws IllegalArgumentException, naming what is wrong, for an invalid one. */
  void checkName(String user);

  /** Checks role names; throws IllegalArgumentException, naming the first invalid one. */
  void checkRoles(Set<String> roles);

  /** Adds a user; returns false, changing nothing, when the name is taken. */
  boolean create(String user, char[] password, Set<String> roles);

  /** Replaces a user's password; returns false when there is no such user. */
  boolean setPassword(String user, char[] password);

  /** Replaces a user's roles; returns false when there is no such user. */
  boolean setRoles(String user, Set<String> roles);

  /** Removes a user, whose tokens stop working; returns false when there was no such user. */
  boolean drop(String user);
}
