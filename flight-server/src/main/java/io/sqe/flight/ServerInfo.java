package io.sqe.flight;

import io.sqe.engine.SqeVersion;

/** The server's name and version as clients see them (GetSqlInfo, JDBC DatabaseMetaData). */
public final class ServerInfo {
  public static final String NAME = "SQE";
  public static final String VERSION = SqeVersion.VERSION;

  private ServerInfo() {}
}
