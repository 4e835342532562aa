package io.sqe.engine.sql;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Type names SQE reads as its own types: TEXT (PostgreSQL) and STRING (Spark, Trino's Hive) for
 * VARCHAR, and TIMESTAMPTZ (PostgreSQL, DuckDB) for TIMESTAMP WITH LOCAL TIME ZONE, Iceberg's
 * timestamptz.
 */
public final class TypeAliases {
  private static final Map<String, SqlTypeName> ALIASES = Map.of(
      "text", SqlTypeName.VARCHAR,
      "string", SqlTypeName.VARCHAR,
      "timestamptz", SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE);

  private TypeAliases() {}

  /** The type a name stands for, if it is an alias. */
  public static Optional<SqlTypeName> of(String name) {
    return Optional.ofNullable(ALIASES.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Adds the aliases to a schema tree, where the validator looks up named types (as in CAST). */
  public static void addTo(CalciteSchema root) {
    ALIASES.forEach((name, type) -> root.add(name, factory -> factory.createSqlType(type)));
  }
}
