package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.sql.ddl.SqlProperty;
import io.sqe.engine.sql.ddl.SqlSortField;
import io.sqe.engine.sql.ddl.SqlTransform;
import io.sqe.write.storage.LocationRules;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.iceberg.NullOrder;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Term;
import org.apache.iceberg.types.Types;

/**
 * The partition spec, sort order, location and properties of a CREATE TABLE ... AS, from its
 * PARTITIONED BY, SORTED BY, COMMENT and WITH clauses. Column names match the new schema ignoring
 * case.
 *
 * @param location the {@code location} of WITH; null for the catalog's default
 */
record TableLayout(PartitionSpec spec, SortOrder sortOrder, String location, Map<String, String> properties) {
  private static final String LOCATION = "location";

  static TableLayout of(Schema schema, SqlNodeList partitionBy, SqlNodeList sortedBy, SqlNodeList properties, String comment) {
    Map<String, String> values = properties(properties, comment);
    String location = values.remove(LOCATION);
    return new TableLayout(spec(schema, partitionBy), sortOrder(schema, sortedBy), location, Map.copyOf(values));
  }

  private static PartitionSpec spec(Schema schema, SqlNodeList partitionBy) {
    if (partitionBy.isEmpty()) {
      return PartitionSpec.unpartitioned();
    }
    PartitionSpec.Builder spec = PartitionSpec.builderFor(schema);
    for (SqlNode node : partitionBy) {
      SqlTransform transform = (SqlTransform) node;
      String column = column(schema, transform);
      try {
        switch (transform.kind()) {
          case IDENTITY -> spec.identity(column);
          case YEAR -> spec.year(column);
          case MONTH -> spec.month(column);
          case DAY -> spec.day(column);
          case HOUR -> spec.hour(column);
          case BUCKET -> spec.bucket(column, transform.argument());
          case TRUNCATE -> spec.truncate(column, transform.argument());
        }
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Cannot partition by " + transform + ": " + e.getMessage(), transform);
      }
    }
    return spec.build();
  }

  private static SortOrder sortOrder(Schema schema, SqlNodeList sortedBy) {
    if (sortedBy.isEmpty()) {
      return SortOrder.unsorted();
    }
    SortOrder.Builder order = SortOrder.builderFor(schema);
    for (SqlNode node : sortedBy) {
      SqlSortField field = (SqlSortField) node;
      SqlTransform transform = field.term();
      String column = column(schema, transform);
      Term term = switch (transform.kind()) {
        case IDENTITY -> Expressions.ref(column);
        case YEAR -> Expressions.year(column);
        case MONTH -> Expressions.month(column);
        case DAY -> Expressions.day(column);
        case HOUR -> Expressions.hour(column);
        case BUCKET -> Expressions.bucket(column, transform.argument());
        case TRUNCATE -> Expressions.truncate(column, transform.argument());
      };
      NullOrder nulls = switch (field.nullOrder()) {
        case FIRST -> NullOrder.NULLS_FIRST;
        case LAST -> NullOrder.NULLS_LAST;
        case DEFAULT -> field.descending() ? NullOrder.NULLS_LAST : NullOrder.NULLS_FIRST;
      };
      try {
        if (field.descending()) {
          order.desc(term, nulls);
        } else {
          order.asc(term, nulls);
        }
      } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Cannot sort by " + transform + ": " + e.getMessage(), field);
      }
    }
    try {
      return order.build();
    } catch (IllegalArgumentException | org.apache.iceberg.exceptions.ValidationException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Invalid sort order: " + e.getMessage(), sortedBy);
    }
  }

  private static String column(Schema schema, SqlTransform transform) {
    String name = String.join(".", transform.column().names);
    Types.NestedField field = schema.findField(name);
    if (field == null) {
      field = schema.caseInsensitiveFindField(name);
    }
    if (field == null) {
      throw error(ErrorCode.NOT_FOUND, "Column '" + name + "' not found in the new table", transform.column());
    }
    return schema.findColumnName(field.fieldId());
  }

  /** The properties as written; keys that name a path in lower case, as Iceberg reads them. */
  private static Map<String, String> properties(SqlNodeList properties, String comment) {
    Map<String, String> result = new LinkedHashMap<>();
    for (SqlNode node : properties) {
      SqlProperty property = (SqlProperty) node;
      String value = property.valueText();
      if (value == null) {
        throw error(ErrorCode.INVALID_ARGUMENT, "The value of table property " + property.key() + " must be a literal", property.value());
      }
      String key = LocationRules.isPathProperty(property.key()) ? property.key().toLowerCase(Locale.ROOT) : property.key();
      if (result.put(key, value) != null) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Table property " + key + " is set twice", property);
      }
    }
    if (comment != null) {
      result.put("comment", comment);
    }
    return result;
  }
}
