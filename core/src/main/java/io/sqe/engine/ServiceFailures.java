package io.sqe.engine;

import java.util.Optional;

/**
 * Recognises failures of the services SQE works on, the catalog and object storage, anywhere in a
 * chain of causes, and turns them into errors that say which service failed and how: cannot be
 * reached ({@link ErrorCode#UNAVAILABLE}), or refused SQE's credentials ({@link
 * ErrorCode#PERMISSION_DENIED}). Storage failures are recognised by the AWS SDK's exception types,
 * by name, so the engine does not depend on the SDK; messages never carry credentials (neither
 * Iceberg's nor the SDK's do).
 */
public final class ServiceFailures {
  private ServiceFailures() {}

  public static Optional<SqeException> classify(Throwable error) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SqeException) {
        return Optional.empty();
      }
      Throwable current = t;
      Optional<SqeException> found = storage(current).or(() -> catalog(current));
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  private static Optional<SqeException> storage(Throwable t) {
    if (isA(t, "software.amazon.awssdk.awscore.exception.AwsServiceException")) {
      int status = statusCode(t);
      if (status == 401 || status == 403) {
        return Optional.of(new SqeException(
            ErrorCode.PERMISSION_DENIED, "Object storage refused SQE's credentials (HTTP " + status + "): " + firstLine(t), t));
      }
      if (status >= 500 || status == 429) {
        return Optional.of(new SqeException(
            ErrorCode.UNAVAILABLE, "Object storage failed to answer (HTTP " + status + "); try again: " + firstLine(t), t));
      }
      return Optional.empty();
    }
    if (isA(t, "software.amazon.awssdk.core.exception.SdkClientException")
        && String.valueOf(t.getMessage()).contains("Unable to load credentials")) {
      return Optional.of(new SqeException(
          ErrorCode.PERMISSION_DENIED,
          "SQE has no credentials for object storage: configure them, or let the catalog vend them: " + firstLine(t), t));
    }
    if (isA(t, "software.amazon.awssdk.core.exception.SdkClientException")) {
      return Optional.of(new SqeException(ErrorCode.UNAVAILABLE, "Object storage cannot be reached: " + firstLine(t), t));
    }
    return Optional.empty();
  }

  private static Optional<SqeException> catalog(Throwable t) {
    if (isA(t, "org.apache.iceberg.exceptions.NotAuthorizedException")
        || isA(t, "org.apache.iceberg.exceptions.ForbiddenException")) {
      return Optional.of(new SqeException(ErrorCode.PERMISSION_DENIED, "The catalog refused the request: " + firstLine(t), t));
    }
    if (isA(t, "org.apache.iceberg.exceptions.ServiceUnavailableException")
        || isA(t, "org.apache.iceberg.exceptions.ServiceFailureException")
        || isA(t, "org.apache.iceberg.exceptions.RESTException")) {
      return Optional.of(new SqeException(ErrorCode.UNAVAILABLE, "The catalog cannot be reached or failed: " + firstLine(t), t));
    }
    return Optional.empty();
  }

  private static boolean isA(Throwable t, String className) {
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals(className)) {
        return true;
      }
    }
    return false;
  }

  private static int statusCode(Throwable t) {
    try {
      Object status = t.getClass().getMethod("statusCode").invoke(t);
      return status instanceof Integer ? (Integer) status : -1;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return -1;
    }
  }

  private static String firstLine(Throwable t) {
    String message = String.valueOf(t.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
