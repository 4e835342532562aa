package io.sqe.engine.command;

import static java.util.Objects.requireNonNull;

import io.sqe.catalog.types.CalciteTypeMapping;
import io.sqe.catalog.types.TrinoType;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.plan.ResultColumnMetadata;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.SqeParser;
import io.sqe.engine.sql.SqlDialect;
import io.sqe.engine.sql.StatementText;
import io.sqe.engine.sql.ddl.SqlDeallocate;
import io.sqe.engine.sql.ddl.SqlDescribePrepared;
import io.sqe.engine.sql.ddl.SqlExecute;
import io.sqe.engine.sql.ddl.SqlPrepare;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDynamicParam;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;

/**
 * Statements kept in the session by name, as Trino and its JDBC driver use them: {@code PREPARE
 * name FROM statement}, {@code EXECUTE name [USING value, ...]} (and {@code EXECUTE IMMEDIATE
 * 'statement' USING ...}), {@code DEALLOCATE PREPARE name}, and {@code DESCRIBE INPUT|OUTPUT name}
 * (the parameters' types and the result's columns, with Trino's type names).
 *
 * <p>EXECUTE runs the statement with each {@code ?} replaced by its value where the parser found
 * it, through the same preparing as any statement: the same checks, plan cache and audit.
 */
public final class PreparedStatementCommands {
  private static final Schema DESCRIBE_INPUT = new Schema(List.of(
      new Field("Position", FieldType.notNullable(new ArrowType.Int(64, true)), List.of()),
      new Field("Type", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of())));
  private static final Schema DESCRIBE_OUTPUT = new Schema(List.of(
      new Field("Column Name", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
      new Field("Catalog", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
      new Field("Schema", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
      new Field("Table", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
      new Field("Type", FieldType.notNullable(ArrowType.Utf8.INSTANCE), List.of()),
      new Field("Type Size", FieldType.notNullable(new ArrowType.Int(64, true)), List.of()),
      new Field("Aliased", FieldType.notNullable(ArrowType.Bool.INSTANCE), List.of())));

  private final BiFunction<Session, String, Prepared> prepare;

  /** @param prepare how the engine prepares a statement's text, for EXECUTE and DESCRIBE */
  public PreparedStatementCommands(BiFunction<Session, String, Prepared> prepare) {
    this.prepare = requireNonNull(prepare, "prepare is null");
  }

  /**
   * The statement, if it is one of these.
   *
   * @param sql the text {@code statement} was parsed from
   */
  public Optional<Prepared> prepare(Session session, SqlNode statement, String sql) {
    if (statement instanceof SqlPrepare) {
      SqlPrepare prepared = (SqlPrepare) statement;
      String name = prepared.name();
      String text = prepared.statementText(sql);
      return Optional.of(new Prepared.Command(sql, sessionChange(s -> s.withPreparedStatement(name, text))));
    }
    if (statement instanceof SqlDeallocate) {
      SqlDeallocate deallocate = (SqlDeallocate) statement;
      String name = deallocate.name();
      text(session, name, deallocate.nameNode().getParserPosition());
      return Optional.of(new Prepared.Command(sql, sessionChange(s -> s.withoutPreparedStatement(name))));
    }
    if (statement instanceof SqlExecute) {
      return Optional.of(execute(session, (SqlExecute) statement));
    }
    if (statement instanceof SqlDescribePrepared) {
      SqlDescribePrepared describe = (SqlDescribePrepared) statement;
      Prepared described = prepare.apply(session, text(session, describe.name(), describe.nameNode().getParserPosition()));
      return Optional.of(describe.input() ? describeInput(sql, described) : describeOutput(sql, described));
    }
    return Optional.empty();
  }

  private Prepared execute(Session session, SqlExecute execute) {
    String text = execute.name() == null ? execute.immediateText() : text(session, execute.name(), execute.getParserPosition());
    List<SqlDynamicParam> parameters = parameters(SqeParser.parse(text));
    List<SqlNode> values = execute.arguments();
    if (parameters.size() != values.size()) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT,
          "Incorrect number of parameters: expected " + parameters.size() + " but found " + values.size(), position(execute.getParserPosition()), null);
    }
    return prepare.apply(session, bind(text, parameters, values));
  }

  /** The statement's text with each parameter replaced by its value, last first so earlier offsets hold. */
  private static String bind(String text, List<SqlDynamicParam> parameters, List<SqlNode> values) {
    StringBuilder bound = new StringBuilder(text);
    List<SqlDynamicParam> byPosition = new ArrayList<>(parameters);
    byPosition.sort(Comparator.comparingInt(SqlDynamicParam::getIndex).reversed());
    for (SqlDynamicParam parameter : byPosition) {
      SqlParserPos pos = parameter.getParserPosition();
      int offset = StatementText.offset(text, pos.getLineNum(), pos.getColumnNum());
      if (offset >= text.length() || text.charAt(offset) != '?') {
        throw new SqeException(ErrorCode.INTERNAL, "Cannot find parameter " + (parameter.getIndex() + 1) + " in the prepared statement");
      }
      bound.replace(offset, offset + 1, value(values.get(parameter.getIndex())));
    }
    return bound.toString();
  }

  /** A value as SQL text that stands where a parameter stood: in parentheses unless a literal or a cast. */
  private static String value(SqlNode value) {
    String sql = SqlDialect.toSql(value);
    boolean atomic = value instanceof SqlLiteral || (value instanceof SqlCall && value.getKind() == SqlKind.CAST);
    return atomic ? sql : "(" + sql + ")";
  }

  /** The {@code ?} parameters of a statement, in the order of their indexes. */
  private static List<SqlDynamicParam> parameters(SqlNode statement) {
    List<SqlDynamicParam> parameters = new ArrayList<>();
    statement.accept(new SqlBasicVisitor<Void>() {
      @Override
      public Void visit(SqlDynamicParam param) {
        parameters.add(param);
        return null;
      }

      @Override
      public Void visit(SqlCall call) {
        for (SqlNode operand : call.getOperandList()) {
          if (operand != null) {
            operand.accept(this);
          }
        }
        return null;
      }

      @Override
      public Void visit(SqlNodeList list) {
        for (SqlNode node : list) {
          if (node != null) {
            node.accept(this);
          }
        }
        return null;
      }
    });
    parameters.sort(Comparator.comparingInt(SqlDynamicParam::getIndex));
    return parameters;
  }

  /** DESCRIBE INPUT: each parameter's position and Trino type. */
  private static Prepared describeInput(String sql, Prepared described) {
    List<Object[]> rows = new ArrayList<>();
    List<RelDataType> types = described.parameterTypes();
    for (int i = 0; i < types.size(); i++) {
      rows.add(new Object[] {(long) i + 1, TrinoType.of(CalciteTypeMapping.toArrow("parameter", types.get(i))).displayName()});
    }
    return new Prepared.Rows(sql, DESCRIBE_INPUT, rows);
  }

  /** DESCRIBE OUTPUT: each result column with the table it comes from, if any, and its Trino type. */
  private static Prepared describeOutput(String sql, Prepared described) {
    List<Object[]> rows = new ArrayList<>();
    for (Field field : described.resultSchema().getFields()) {
      Map<String, String> origin = field.getMetadata();
      TrinoType type = TrinoType.of(field);
      rows.add(new Object[] {
        field.getName(),
        origin.getOrDefault(ResultColumnMetadata.CATALOG_NAME, ""),
        origin.getOrDefault(ResultColumnMetadata.SCHEMA_NAME, ""),
        origin.getOrDefault(ResultColumnMetadata.TABLE_NAME, ""),
        type.displayName(),
        fixedSize(type),
        false
      });
    }
    // A command that is no query describes its result: the count of rows it wrote (or its report).
    return new Prepared.Rows(sql, DESCRIBE_OUTPUT, rows);
  }

  /** The bytes a value of a fixed-width type takes, as Trino's Type Size says; 0 for others. */
  private static long fixedSize(TrinoType type) {
    switch (type.rawType()) {
      case "boolean":
      case "tinyint":
        return 1;
      case "smallint":
        return 2;
      case "integer":
      case "real":
      case "date":
        return 4;
      case "bigint":
      case "double":
      case "time":
      case "timestamp":
        return 8;
      case "timestamp with time zone":
      case "uuid":
        return 16;
      case "decimal":
        return (Long) type.arguments().get(0) <= 18 ? 8 : 16;
      default:
        return 0;
    }
  }

  private static String text(Session session, String name, SqlParserPos pos) {
    String text = session.preparedStatements().get(name);
    if (text == null) {
      throw new SqeException(ErrorCode.NOT_FOUND, "Prepared statement not found: " + name, position(pos), null);
    }
    return text;
  }

  private static PreparedCommand sessionChange(UnaryOperator<Session> change) {
    return new PreparedCommand() {
      @Override
      public boolean runsInTransaction() {
        return true;
      }

      @Override
      public CommandResult execute(CommandContext context, List<Object> parameters) {
        return CommandResult.session(change);
      }
    };
  }

  private static SqlPosition position(SqlParserPos pos) {
    return pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null;
  }
}
