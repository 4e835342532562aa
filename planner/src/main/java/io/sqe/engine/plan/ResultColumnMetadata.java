package io.sqe.engine.plan;

import io.sqe.catalog.types.CalciteTypeMapping;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;

/**
 * The Arrow field metadata that Flight SQL defines for result columns (the keys of Arrow's
 * {@code FlightSqlColumnMetadata}): type name, precision, scale, and the table a column comes from.
 * Flags are "1" or "0", as Arrow's reader expects.
 */
public final class ResultColumnMetadata {
  public static final String CATALOG_NAME = "ARROW:FLIGHT:SQL:CATALOG_NAME";
  public static final String SCHEMA_NAME = "ARROW:FLIGHT:SQL:SCHEMA_NAME";
  public static final String TABLE_NAME = "ARROW:FLIGHT:SQL:TABLE_NAME";
  public static final String TYPE_NAME = "ARROW:FLIGHT:SQL:TYPE_NAME";
  public static final String PRECISION = "ARROW:FLIGHT:SQL:PRECISION";
  public static final String SCALE = "ARROW:FLIGHT:SQL:SCALE";
  public static final String IS_AUTO_INCREMENT = "ARROW:FLIGHT:SQL:IS_AUTO_INCREMENT";
  public static final String IS_CASE_SENSITIVE = "ARROW:FLIGHT:SQL:IS_CASE_SENSITIVE";
  public static final String IS_READ_ONLY = "ARROW:FLIGHT:SQL:IS_READ_ONLY";
  public static final String IS_SEARCHABLE = "ARROW:FLIGHT:SQL:IS_SEARCHABLE";
  public static final String REMARKS = "ARROW:FLIGHT:SQL:REMARKS";

  private ResultColumnMetadata() {}

  /**
   * Metadata for a column of the given type.
   *
   * @param origin catalog, schema, table and column the values come from, or null if computed
   * @param base metadata the Arrow type already carries (extension type names)
   */
  public static Map<String, String> of(RelDataType type, List<String> origin, Map<String, String> base) {
    Map<String, String> metadata = new HashMap<>(base == null ? Map.of() : base);
    metadata.put(TYPE_NAME, CalciteTypeMapping.sqlTypeName(type));
    switch (type.getSqlTypeName()) {
      case DECIMAL:
        metadata.put(PRECISION, Integer.toString(type.getPrecision()));
        metadata.put(SCALE, Integer.toString(type.getScale()));
        break;
      case BINARY:
        if (type.getPrecision() > 0) {
          metadata.put(PRECISION, Integer.toString(type.getPrecision()));
        }
        break;
      case UUID:
        metadata.put(PRECISION, "16");
        break;
      default:
        break;
    }
    switch (type.getSqlTypeName()) {
      case CHAR:
      case VARCHAR:
        metadata.put(IS_CASE_SENSITIVE, "1");
        break;
      default:
        break;
    }
    metadata.put(IS_AUTO_INCREMENT, "0");
    metadata.put(IS_SEARCHABLE, "1");
    if (origin != null && origin.size() == 4) {
      metadata.put(CATALOG_NAME, origin.get(0));
      metadata.put(SCHEMA_NAME, origin.get(1));
      metadata.put(TABLE_NAME, origin.get(2));
      metadata.put(IS_READ_ONLY, "0");
    } else {
      metadata.put(IS_READ_ONLY, "1");
    }
    return metadata;
  }
}
