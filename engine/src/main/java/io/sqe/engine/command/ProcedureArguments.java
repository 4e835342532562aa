package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.sql.ddl.SqlCallProcedure;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * The string arguments of a {@code CALL}, by parameter name: named ({@code query_id => '...'}) or
 * positional in the procedure's parameter order, as Trino's procedures take them.
 */
public final class ProcedureArguments {
  private final String procedure;
  private final Map<String, String> values;

  private ProcedureArguments(String procedure, Map<String, String> values) {
    this.procedure = requireNonNull(procedure, "procedure is null");
    this.values = Map.copyOf(values);
  }

  /**
   * The arguments of {@code call}; INVALID_ARGUMENT, at the argument, for one that is no string
   * literal, unknown, given twice or positional after a named one.
   */
  public static ProcedureArguments of(String procedure, SqlCallProcedure call, List<String> parameters) {
    Map<String, String> values = new LinkedHashMap<>();
    boolean named = false;
    List<SqlNode> arguments = call.arguments().getList();
    for (int i = 0; i < arguments.size(); i++) {
      SqlNode argument = arguments.get(i);
      String parameter;
      SqlNode value;
      if (argument.getKind() == SqlKind.ARGUMENT_ASSIGNMENT) {
        SqlBasicCall assignment = (SqlBasicCall) argument;
        value = assignment.operand(0);
        parameter = ((SqlIdentifier) assignment.operand(1)).getSimple().toLowerCase(Locale.ROOT);
        named = true;
        if (!parameters.contains(parameter)) {
          throw error(procedure + " has no argument '" + parameter + "'; it takes " + String.join(", ", parameters), argument);
        }
      } else {
        if (named) {
          throw error("A positional argument cannot follow a named one", argument);
        }
        if (i >= parameters.size()) {
          throw error(procedure + " takes at most " + parameters.size() + " arguments (" + String.join(", ", parameters) + ")", argument);
        }
        parameter = parameters.get(i);
        value = argument;
      }
      if (!(value instanceof SqlCharStringLiteral)) {
        throw error("Argument '" + parameter + "' of " + procedure + " must be a string literal", value);
      }
      if (values.put(parameter, ((SqlCharStringLiteral) value).getValueAs(String.class)) != null) {
        throw error("Argument '" + parameter + "' is given twice", argument);
      }
    }
    return new ProcedureArguments(procedure, values);
  }

  public Optional<String> optional(String parameter) {
    return Optional.ofNullable(values.get(parameter));
  }

  /** The argument's value; INVALID_ARGUMENT when it was not given. */
  public String required(String parameter) {
    return optional(parameter).orElseThrow(() -> new SqeException(
        ErrorCode.INVALID_ARGUMENT, procedure + " needs the argument '" + parameter + "'"));
  }

  private static SqeException error(String message, SqlNode at) {
    SqlParserPos pos = at.getParserPosition();
    return new SqeException(
        ErrorCode.INVALID_ARGUMENT, message, pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null, null);
  }
}
