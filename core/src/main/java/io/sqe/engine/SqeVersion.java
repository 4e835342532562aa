package io.sqe.engine;

/** SQE's version, as clients see it (Flight SQL's server info, JDBC metadata, {@code version()}). */
public final class SqeVersion {
  public static final String VERSION = version();

  private SqeVersion() {}

  private static String version() {
    String version = SqeVersion.class.getPackage().getImplementationVersion();
    return version == null ? "0.1.0-SNAPSHOT" : version;
  }
}
