package io.sqe.engine.sql;

import java.lang.reflect.Type;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelRecordType;
import org.apache.calcite.sql.SqlCollation;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Calcite's Java type factory, with character types in UTF-8 (Calcite's default, ISO-8859-1,
 * refuses every literal beyond Latin-1) and struct values held as {@code Object[]} at run time
 * (instead of generated classes) so that rows read from Iceberg can carry them directly.
 */
public final class SqeJavaTypeFactory extends JavaTypeFactoryImpl {
  public SqeJavaTypeFactory() {
    super(SqeTypeSystem.INSTANCE);
  }

  /**
   * The character set of every character type and string literal: Iceberg strings and Arrow
   * VARCHARs are UTF-8, and a Java string holds any code point.
   */
  @Override
  public Charset getDefaultCharset() {
    return StandardCharsets.UTF_8;
  }

  /**
   * UTF-8 whatever the character set asked for: a prefix such as {@code _UTF16'...'} or the
   * {@code U&'...'} form (which Calcite types UTF-16) only says how a literal is written, and
   * text of two character sets could not be compared.
   */
  @Override
  public RelDataType createTypeWithCharsetAndCollation(RelDataType type, Charset charset, SqlCollation collation) {
    return super.createTypeWithCharsetAndCollation(type, StandardCharsets.UTF_8, collation);
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
