package io.sqe.engine;

/** The category of every error a client can see; each maps to one Flight status. */
public enum ErrorCode {
  INVALID_ARGUMENT,
  NOT_FOUND,
  ALREADY_EXISTS,
  PERMISSION_DENIED,
  UNAUTHENTICATED,
  /** A conflicting concurrent change, or a statement that does not fit the current state. */
  FAILED_PRECONDITION,
  RESOURCE_EXHAUSTED,
  CANCELLED,
  DEADLINE_EXCEEDED,
  /** A service SQE depends on (the catalog, object storage, an identity provider) cannot be reached. */
  UNAVAILABLE,
  NOT_SUPPORTED,
  INTERNAL
}
