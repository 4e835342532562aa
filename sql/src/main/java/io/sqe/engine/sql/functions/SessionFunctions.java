package io.sqe.engine.sql.functions;

import io.sqe.engine.SqeVersion;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlShuttle;

/**
 * {@code current_catalog} and {@code current_schema} (also {@code current_schema()}), as in
 * PostgreSQL and Trino: the session's catalog and schema, a VARCHAR, null when the session has no
 * schema. Calcite parses both but returns an empty string for the first and cannot run the second,
 * so a statement gets them as constants when it is planned for a session. {@code version()}, as in
 * Trino, is SQE's version, which Trino's JDBC driver asks for as the database's version.
 */
public final class SessionFunctions {
  private SessionFunctions() {}

  /** {@code node} with every {@code current_catalog} and {@code current_schema} replaced. */
  public static SqlNode bind(SqlNode node, String catalog, String schema) {
    SqlNode result = node.accept(
        new SqlShuttle() {
          @Override
          public SqlNode visit(SqlCall call) {
            if (is(call, "CURRENT_CATALOG")) {
              return text(catalog, call.getParserPosition());
            }
            if (is(call, "CURRENT_SCHEMA")) {
              return text(schema, call.getParserPosition());
            }
            if (is(call, "VERSION")) {
              return text(SqeVersion.VERSION, call.getParserPosition());
            }
            return super.visit(call);
          }

          @Override
          public SqlNode visit(SqlIdentifier id) {
            // Without parentheses the parser reads them as names, which the validator would make
            // calls; both are reserved words, so no column has such an unquoted name.
            if (id.isSimple() && !id.isComponentQuoted(0)) {
              if (id.getSimple().equalsIgnoreCase("CURRENT_CATALOG")) {
                return text(catalog, id.getParserPosition());
              }
              if (id.getSimple().equalsIgnoreCase("CURRENT_SCHEMA")) {
                return text(schema, id.getParserPosition());
              }
            }
            return id;
          }
        });
    return result == null ? node : result;
  }

  private static boolean is(SqlCall call, String name) {
    return call.operandCount() == 0 && call.getOperator().getName().equalsIgnoreCase(name);
  }

  private static SqlNode text(String value, SqlParserPos pos) {
    SqlNode literal = value == null ? SqlLiteral.createNull(pos) : SqlLiteral.createCharString(value, pos);
    return SqlStdOperatorTable.CAST.createCall(
        pos, literal, new SqlDataTypeSpec(new SqlBasicTypeNameSpec(SqlTypeName.VARCHAR, pos), pos));
  }
}
