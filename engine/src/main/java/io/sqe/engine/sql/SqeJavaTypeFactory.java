package io.sqe.engine.sql;

import java.lang.reflect.Type;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelRecordType;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's Java type factory, with struct values held as {@code Object[]} at run time (instead of
 * generated classes) so that rows read from Iceberg can carry them directly.
 */
public final class SqeJavaTypeFactory extends JavaTypeFactoryImpl {
  public SqeJavaTypeFactory() {
    super(SqeTypeSystem.INSTANCE);
  }

  @Override
  public Type getJavaClass(RelDataType type) {
    if (type.getSqlTypeName() == SqlTypeName.ROW && type instanceof RelRecordType) {
      return Object[].class;
    }
    if (type.getSqlTypeName() == SqlTypeName.UUID) {
      return java.util.UUID.class;
    }
    return super.getJavaClass(type);
  }
}
