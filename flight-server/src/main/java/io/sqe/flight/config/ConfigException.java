package io.sqe.flight.config;

/** A configuration the server cannot start with; the message says which setting and why. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
