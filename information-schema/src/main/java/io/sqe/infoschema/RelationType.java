package io.sqe.infoschema;

import java.util.Locale;
import java.util.Optional;

/** What a relation is, with its name in information_schema and in the Flight SQL metadata commands. */
public enum RelationType {
  TABLE("BASE TABLE", "TABLE"),
  VIEW("VIEW", "VIEW");

  private final String sqlName;
  private final String flightName;

  RelationType(String sqlName, String flightName) {
    this.sqlName = sqlName;
    this.flightName = flightName;
  }

  /** The {@code table_type} of information_schema.tables, as in the SQL standard. */
  public String sqlName() {
    return sqlName;
  }

  /** The {@code table_type} of Flight SQL GetTables and GetTableTypes, as ODBC and JDBC tools expect it. */
  public String flightName() {
    return flightName;
  }

  /** The type a Flight SQL table type names, ignoring case as ODBC tools send them as users type them. */
  public static Optional<RelationType> ofFlightName(String name) {
    String upper = name.trim().toUpperCase(Locale.ROOT);
    for (RelationType type : values()) {
      if (type.flightName.equals(upper)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }

  /** The type information_schema calls {@code name}, compared exactly. */
  public static Optional<RelationType> ofSqlName(String name) {
    for (RelationType type : values()) {
      if (type.sqlName.equals(name)) {
        return Optional.of(type);
      }
    }
    return Optional.empty();
  }
}
