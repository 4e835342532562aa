package io.sqe.write.ddl;

import static io.sqe.write.ddl.DdlErrors.error;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.UnsupportedTypeException;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.sql.SqeJavaTypeFactory;
import io.sqe.engine.sql.TypeAliases;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCollectionTypeNameSpec;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlMapTypeNameSpec;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlRowTypeNameSpec;
import org.apache.calcite.sql.SqlTypeNameSpec;
import org.apache.calcite.sql.SqlUserDefinedTypeNameSpec;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The Iceberg type of a declared column type. Fields of a ROW are optional unless declared NOT
 * NULL, array elements and map values are optional, map keys are
 * required. Field ids are numbered in declaration order; Iceberg assigns its own when the schema
 * becomes a table's.
 */
final class ColumnTypes {
  /** Iceberg's largest decimal precision. */
  private static final int MAX_DECIMAL_PRECISION = 38;
  /** SQE stores timestamps with microseconds. */
  private static final int MAX_TIMESTAMP_PRECISION = 6;

  private final SqlValidator validator;
  private int lastId;

  ColumnTypes() {
    this(0);
  }

  /** Numbers fields after {@code lastId}, for a column added to an existing schema. */
  ColumnTypes(int lastId) {
    SqeJavaTypeFactory typeFactory = new SqeJavaTypeFactory();
    CalciteCatalogReader reader =
        new CalciteCatalogReader(CalciteSchema.createRootSchema(false, false), List.of(), typeFactory, CalciteConnectionConfig.DEFAULT);
    this.validator = SqlValidatorUtil.newValidator(SqlStdOperatorTable.instance(), reader, typeFactory, SqlValidator.Config.DEFAULT);
    this.lastId = lastId;
  }

  /** A column with its type, NOT NULL and comment. */
  Types.NestedField field(String name, SqlDataTypeSpec spec, boolean notNull, String comment) {
    int id = ++lastId;
    Type type = type(spec);
    return Types.NestedField.builder().withId(id).withName(name).ofType(type).isOptional(!notNull).withDoc(comment).build();
  }

  Type type(SqlDataTypeSpec spec) {
    return type(spec.getTypeNameSpec(), spec);
  }

  private Type type(SqlTypeNameSpec spec, SqlNode at) {
    if (spec instanceof SqlRowTypeNameSpec) {
      SqlRowTypeNameSpec row = (SqlRowTypeNameSpec) spec;
      List<Types.NestedField> fields = new ArrayList<>();
      Set<String> names = new HashSet<>();
      for (int i = 0; i < row.getArity(); i++) {
        SqlIdentifier fieldName = row.getFieldNames().get(i);
        SqlDataTypeSpec fieldType = row.getFieldTypes().get(i);
        if (!names.add(fieldName.getSimple().toLowerCase(Locale.ROOT))) {
          throw error(ErrorCode.INVALID_ARGUMENT, "Duplicate field name '" + fieldName.getSimple() + "' in ROW type", fieldName);
        }
        fields.add(field(fieldName.getSimple(), fieldType, writtenNotNull(fieldType), null));
      }
      return Types.StructType.of(fields);
    }
    if (spec instanceof SqlCollectionTypeNameSpec) {
      int elementId = ++lastId;
      Type element = type(((SqlCollectionTypeNameSpec) spec).getElementTypeName(), at);
      return Types.ListType.ofOptional(elementId, element);
    }
    if (spec instanceof SqlMapTypeNameSpec) {
      SqlMapTypeNameSpec map = (SqlMapTypeNameSpec) spec;
      int keyId = ++lastId;
      int valueId = ++lastId;
      Type key = type(map.getKeyType());
      Type value = type(map.getValType());
      return Boolean.FALSE.equals(map.getValType().getNullable())
          ? Types.MapType.ofRequired(keyId, valueId, key, value)
          : Types.MapType.ofOptional(keyId, valueId, key, value);
    }
    if (spec instanceof SqlBasicTypeNameSpec) {
      return basic((SqlBasicTypeNameSpec) spec, at);
    }
    if (spec instanceof SqlUserDefinedTypeNameSpec && spec.getTypeName().isSimple()) {
      Optional<SqlTypeName> alias = TypeAliases.of(spec.getTypeName().getSimple());
      if (alias.isPresent()) {
        return basic(new SqlBasicTypeNameSpec(alias.get(), spec.getParserPos()), at);
      }
    }
    throw error(ErrorCode.INVALID_ARGUMENT, "Unknown type '" + spec.getTypeName() + "'", at);
  }

  /**
   * Whether a ROW field was declared NOT NULL. Calcite's grammar reads a field without NULL or NOT
   * NULL as NOT NULL; SQE reads it as nullable, as SQL, Trino and Iceberg do. The tree holds NOT
   * NULL either way, but a written NOT NULL extends the spec's position past the end of its type.
   */
  private static boolean writtenNotNull(SqlDataTypeSpec field) {
    if (!Boolean.FALSE.equals(field.getNullable())) {
      return false;
    }
    SqlParserPos spec = field.getParserPosition();
    SqlParserPos type = field.getTypeNameSpec().getParserPos();
    return spec.getEndLineNum() > type.getEndLineNum()
        || (spec.getEndLineNum() == type.getEndLineNum() && spec.getEndColumnNum() > type.getEndColumnNum());
  }

  private Type basic(SqlBasicTypeNameSpec spec, SqlNode at) {
    RelDataType type = spec.deriveType(validator);
    switch (type.getSqlTypeName()) {
      case DECIMAL:
        if (spec.getPrecision() > MAX_DECIMAL_PRECISION) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "DECIMAL precision " + spec.getPrecision() + " is too large: Iceberg decimals hold at most " + MAX_DECIMAL_PRECISION + " digits",
              at);
        }
        if (spec.getPrecision() > 0 && spec.getScale() > spec.getPrecision()) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "DECIMAL scale " + spec.getScale() + " is larger than its precision " + spec.getPrecision(),
              at);
        }
        break;
      case TIMESTAMP:
      case TIMESTAMP_TZ:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        if (spec.getPrecision() > MAX_TIMESTAMP_PRECISION) {
          throw error(
              ErrorCode.INVALID_ARGUMENT,
              "TIMESTAMP(" + spec.getPrecision() + ") is not supported: SQE stores timestamps with microseconds, TIMESTAMP(6)",
              at);
        }
        break;
      default:
        break;
    }
    try {
      return CalciteTypeMapping.toIcebergType(type);
    } catch (UnsupportedTypeException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, e.getMessage(), at);
    }
  }
}
