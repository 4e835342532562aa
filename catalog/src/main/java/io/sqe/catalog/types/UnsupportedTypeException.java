package io.sqe.catalog.types;

/** A type that one side of a mapping cannot represent. */
public final class UnsupportedTypeException extends RuntimeException {
  public UnsupportedTypeException(String message) {
    super(message);
  }
}
