package io.sqe.engine.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * SQL type rules that match what users of Trino and Iceberg expect: decimals up to 38 digits,
 * SUM of integers as BIGINT, AVG of integers as DOUBLE, and CASE/UNION over strings of different
 * lengths typed VARCHAR (Calcite would otherwise pad them as CHAR), and timestamps with microseconds.
 */
public final class SqeTypeSystem extends RelDataTypeSystemImpl {
  public static final SqeTypeSystem INSTANCE = new SqeTypeSystem();
  private static final int MAX_DECIMAL = 38;
  private static final int MIN_AVG_SCALE = 6;
  private static final int MICROSECONDS = 6;

  private SqeTypeSystem() {}

  @Override
  public int getMaxPrecision(SqlTypeName typeName) {
    switch (typeName) {
      case DECIMAL:
        return MAX_DECIMAL;
      case TIMESTAMP:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return MICROSECONDS;
      default:
        return super.getMaxPrecision(typeName);
    }
  }

  /** CAST(x AS TIMESTAMP) keeps microseconds, as Iceberg timestamps have them. */
  @Override
  public int getDefaultPrecision(SqlTypeName typeName) {
    switch (typeName) {
      case TIMESTAMP:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return MICROSECONDS;
      default:
        return super.getDefaultPrecision(typeName);
    }
  }

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? MAX_DECIMAL : super.getMaxScale(typeName);
  }

  @Override
  @SuppressWarnings("deprecation")
  public int getMaxNumericPrecision() {
    return MAX_DECIMAL;
  }

  @Override
  @SuppressWarnings("deprecation")
  public int getMaxNumericScale() {
    return MAX_DECIMAL;
  }

  /** Decimals are rounded half up when their scale shrinks, as in Trino and PostgreSQL. */
  @Override
  public java.math.RoundingMode roundingMode() {
    return java.math.RoundingMode.HALF_UP;
  }

  @Override
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }

  @Override
  public RelDataType deriveSumType(RelDataTypeFactory typeFactory, RelDataType argumentType) {
    switch (argumentType.getSqlTypeName()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
        return typeFactory.createTypeWithNullability(
            typeFactory.createSqlType(SqlTypeName.BIGINT), argumentType.isNullable());
      default:
        return super.deriveSumType(typeFactory, argumentType);
    }
  }

  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory typeFactory, RelDataType argumentType) {
    switch (argumentType.getSqlTypeName()) {
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
        return typeFactory.createTypeWithNullability(
            typeFactory.createSqlType(SqlTypeName.DOUBLE), argumentType.isNullable());
      case DECIMAL:
        return typeFactory.createTypeWithNullability(
            typeFactory.createSqlType(
                SqlTypeName.DECIMAL, MAX_DECIMAL, Math.max(argumentType.getScale(), MIN_AVG_SCALE)),
            argumentType.isNullable());
      default:
        return super.deriveAvgAggType(typeFactory, argumentType);
    }
  }
}
