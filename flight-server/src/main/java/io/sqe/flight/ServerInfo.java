package io.sqe.flight;

/** The server's name and version as clients see them (GetSqlInfo, JDBC DatabaseMetaData). */
public final class ServerInfo {
  public static final String NAME = "SQE";
  public static final String VERSION = version();

  private ServerInfo() {}

  private static String version() {
    String version = ServerInfo.class.getPackage().getImplementationVersion();
    return version == null ? "0.1.0-SNAPSHOT" : version;
  }
}
