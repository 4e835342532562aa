package io.sqe.write.dml;

import static io.sqe.write.dml.SqlPositions.error;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUtil;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.types.Types;

/** The columns a statement assigns: finding them by name, and the expressions it assigns them. */
final class TargetColumns {
  private static final RelDataTypeFactory TYPES = new SqeJavaTypeFactory();

  private TargetColumns() {}

  /**
   * The top-level column {@code name} names, ignoring case when no column matches exactly; the
   * name may be qualified by {@code qualifier} (the table's alias or name).
   */
  static Types.NestedField find(Schema schema, SqlIdentifier name, String qualifier, String table) {
    List<String> names = name.names;
    String column;
    if (names.size() == 1) {
      column = names.get(0);
    } else if (names.size() == 2 && qualifier != null && names.get(0).equalsIgnoreCase(qualifier)) {
      column = names.get(1);
    } else {
      throw error(ErrorCode.NOT_SUPPORTED, "Only top-level columns of " + table + " can be assigned, not " + name, name);
    }
    Types.NestedField ignoringCase = null;
    for (Types.NestedField field : schema.columns()) {
      if (field.name().equals(column)) {
        return field;
      }
      if (ignoringCase == null && field.name().equalsIgnoreCase(column)) {
        ignoringCase = field;
      }
    }
    if (ignoringCase == null) {
      throw error(ErrorCode.NOT_FOUND, "Column '" + column + "' not found in table " + table, name);
    }
    return ignoringCase;
  }

  /** Whether an assigned expression is the DEFAULT keyword. */
  static boolean isDefault(SqlNode node) {
    return node.getKind() == SqlKind.DEFAULT;
  }

  /**
   * The value a column gets when a statement does not give one or says DEFAULT: its write default,
   * else NULL; a NOT NULL column without a default cannot be left out.
   */
  static Object defaultValue(Types.NestedField column, String table, SqlNode at) {
    Object value = column.writeDefault();
    if (value != null) {
      return IdentityPartitionConverters.convertConstant(column.type(), value);
    }
    if (column.isRequired()) {
      throw error(
          ErrorCode.INVALID_ARGUMENT,
          "Column " + column.name() + " of " + table + " is NOT NULL and has no default, so the statement must give it a value",
          at);
    }
    return null;
  }

  /**
   * {@code expression} as assigned to {@code column}: CAST to the column's type when the column is
   * not a struct, list or map (whose values convert field by field), as SQL assignment converts.
   * A NULL for a struct, list or map becomes a NULL of the column's type: left untyped, it can make
   * Calcite give a column of VALUES rows a type narrower than some of the rows (an array of NOT
   * NULL elements where one row's array has a NULL), and then fail on their values.
   */
  static SqlNode assigned(SqlNode expression, Types.NestedField column) {
    SqlParserPos pos = expression.getParserPosition();
    SqlNode value = expression;
    if (column.type().isNestedType()) {
      if (!SqlUtil.isNullLiteral(expression, false)) {
        return value;
      }
      RelDataType type = CalciteTypeMapping.toCalcite(TYPES, column.type(), true);
      return SqlStdOperatorTable.CAST.createCall(pos, value, withPosition(SqlTypeUtil.convertTypeToSpec(type), pos));
    }
    return ValueConversion.castType(TYPES, column.type())
        .<SqlNode>map(type -> SqlStdOperatorTable.CAST.createCall(pos, value, withPosition(type, pos)))
        .orElse(value);
  }

  private static SqlDataTypeSpec withPosition(SqlDataTypeSpec type, SqlParserPos pos) {
    return new SqlDataTypeSpec(type.getTypeNameSpec(), type.getTimeZone(), type.getNullable(), pos);
  }

  /** The SQL type of an Iceberg column, for messages. */
  static RelDataType sqlType(Types.NestedField column) {
    return CalciteTypeMapping.toCalcite(TYPES, column.type(), column.isOptional());
  }
}
