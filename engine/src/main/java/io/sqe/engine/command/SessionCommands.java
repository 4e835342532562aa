package io.sqe.engine.command;

import io.sqe.catalog.LakehouseCatalog;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.exec.ExecutionOptions;
import io.sqe.engine.plan.PlannerOptions;
import io.sqe.engine.session.DurationText;
import io.sqe.engine.session.OptionText;
import io.sqe.engine.session.Session;
import io.sqe.engine.sql.ddl.SqlUse;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.ZoneId;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSetOption;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Session statements: {@code USE [catalog.]schema}, {@code SET [SESSION] name = value} and
 * {@code RESET name} for {@code catalog}, {@code schema}, {@code time_zone}, {@code
 * statement_timeout} and the planner, execution and write options ({@link PlannerOptions#NAMES}, {@link
 * ExecutionOptions#NAMES}, {@link WriteOptions#NAMES}; {@code _} may stand for {@code -} in their names, so that they need no
 * quotes). They change only the session they run in.
 */
public final class SessionCommands implements CommandExecutor {
  /** The session property that limits how long each statement may run. */
  public static final String STATEMENT_TIMEOUT = "statement_timeout";
  /**
   * The session property that tags the session's statements in the audit log and {@code
   * system.runtime.queries} (dbt's and Snowflake's {@code query_tag}); kept among the options.
   */
  public static final String QUERY_TAG = "query_tag";
  /** The longest query tag: enough for a dbt model's name and a run id, not for a document. */
  public static final int MAX_QUERY_TAG_LENGTH = 256;

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    if (statement instanceof SqlUse) {
      SqlUse use = (SqlUse) statement;
      String catalog = use.catalog() == null ? context.session().catalog() : catalog(context, use.catalog(), use.name());
      String schema = schema(context, catalog, use.schema(), use.name());
      return Optional.of(command(s -> s.withCatalog(catalog).withSchema(schema)));
    }
    if (statement instanceof SqlSetOption) {
      SqlSetOption set = (SqlSetOption) statement;
      String name = String.join(".", set.getName().names).toLowerCase(Locale.ROOT);
      SqlNode valueNode = set.getValue();
      if (valueNode == null) {
        return Optional.of(reset(context, name, set));
      }
      switch (name) {
        case "catalog": {
          String catalog = catalog(context, text(name, valueNode), valueNode);
          return Optional.of(command(s -> s.withCatalog(catalog).withSchema(null)));
        }
        case "schema": {
          String schema = schema(context, context.session().catalog(), text(name, valueNode), valueNode);
          return Optional.of(command(s -> s.withSchema(schema)));
        }
        case "time_zone":
        case "timezone": {
          ZoneId zone = zone(text(name, valueNode), valueNode);
          return Optional.of(command(s -> s.withTimeZone(zone)));
        }
        case STATEMENT_TIMEOUT: {
          Duration timeout = timeout(text(name, valueNode), valueNode);
          return Optional.of(command(s -> s.withStatementTimeout(timeout)));
        }
        case QUERY_TAG: {
          String tag;
          try {
            tag = queryTag(text(name, valueNode));
          } catch (SqeException e) {
            throw error(ErrorCode.INVALID_ARGUMENT, e.getMessage(), valueNode);
          }
          return Optional.of(command(s -> s.withOption(QUERY_TAG, tag.isEmpty() ? null : tag)));
        }
        default: {
          String option = OptionText.normalize(name);
          if (!isOption(option)) {
            throw error(
                ErrorCode.INVALID_ARGUMENT,
                "Unknown session property '" + name + "'; SQE has catalog, schema, time_zone, statement_timeout and the"
                    + " options of docs/configuration.md (query.parallelism, planner.*, execution.*, materialization_reuse,"
                    + " materialized_view_rewrite)",
                set.getName());
          }
          String value = text(name, valueNode);
          try {
            validate(option, value);
          } catch (SqeException e) {
            throw error(ErrorCode.INVALID_ARGUMENT, e.getMessage(), valueNode);
          }
          return Optional.of(command(s -> s.withOption(option, value)));
        }
      }
    }
    return Optional.empty();
  }

  private static boolean isOption(String normalizedName) {
    return PlannerOptions.NAMES.contains(normalizedName)
        || ExecutionOptions.NAMES.contains(normalizedName)
        || WriteOptions.NAMES.contains(normalizedName)
        || io.sqe.engine.offload.OffloadConfig.SESSION_OPTION.equals(normalizedName);
  }

  /** Fails with INVALID_ARGUMENT unless {@code value} is one option {@code name} takes. */
  private static void validate(String name, String value) {
    if (PlannerOptions.NAMES.contains(name)) {
      PlannerOptions.DEFAULT.with(name, value);
    } else if (WriteOptions.NAMES.contains(name)) {
      WriteOptions.validate(name, value);
    } else if (io.sqe.engine.offload.OffloadConfig.SESSION_OPTION.equals(name)) {
      io.sqe.engine.offload.OffloadConfig.Mode.of(value);
    } else {
      ExecutionOptions.DEFAULT.with(name, value);
    }
  }

  /**
   * A session property by name and value as text, for protocols whose clients send the session
   * with every statement (Trino's {@code X-Trino-Session}): {@code time_zone}, {@code
   * statement_timeout} and the planner and execution options, as {@code SET} takes them. Fails with INVALID_ARGUMENT on another name or a
   * bad value.
   */
  public static UnaryOperator<Session> property(String name, String value) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "time_zone":
      case "timezone": {
        ZoneId zone;
        try {
          zone = ZoneId.of(value);
        } catch (DateTimeException e) {
          throw new SqeException(ErrorCode.INVALID_ARGUMENT, "Unknown time zone '" + value + "'");
        }
        return s -> s.withTimeZone(zone);
      }
      case QUERY_TAG: {
        String tag = queryTag(value);
        return s -> s.withOption(QUERY_TAG, tag.isEmpty() ? null : tag);
      }
      case STATEMENT_TIMEOUT: {
        Duration timeout = DurationText.parseTimeout(value).orElseThrow(() -> new SqeException(
            ErrorCode.INVALID_ARGUMENT,
            "Invalid statement_timeout '" + value + "': use a duration such as '30s', '500ms', '5m' or '1h', or 0 for no limit"));
        return s -> s.withStatementTimeout(timeout);
      }
      default: {
        String option = OptionText.normalize(name);
        if (!isOption(option)) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT,
              "Unknown session property '" + name + "'; SQE has time_zone, statement_timeout and the options of"
                  + " docs/configuration.md (query.parallelism, planner.*, execution.*)");
        }
        validate(option, value);
        return s -> s.withOption(option, value);
      }
    }
  }

  private static PreparedCommand reset(CommandContext context, String name, SqlSetOption set) {
    switch (name) {
      case "schema":
        return command(s -> s.withSchema(null));
      case "time_zone":
      case "timezone":
        return command(s -> s.withTimeZone(java.time.ZoneOffset.UTC));
      case STATEMENT_TIMEOUT:
        return command(s -> s.withStatementTimeout(null));
      case QUERY_TAG:
        return command(s -> s.withOption(QUERY_TAG, null));
      default: {
        String option = OptionText.normalize(name);
        if (isOption(option)) {
          return command(s -> s.withOption(option, null));
        }
        throw error(
            ErrorCode.INVALID_ARGUMENT,
            "Session property '" + name + "' cannot be reset; SQE resets schema, time_zone, statement_timeout and the"
                + " planner and execution options",
            set.getName());
      }
    }
  }

  /**
   * A query tag as given, trimmed; empty clears it. INVALID_ARGUMENT for one longer than {@value
   * #MAX_QUERY_TAG_LENGTH} characters or holding control characters, which would garble the
   * audit log's readers.
   */
  public static String queryTag(String value) {
    String tag = value.trim();
    if (tag.length() > MAX_QUERY_TAG_LENGTH) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT, "A query_tag is at most " + MAX_QUERY_TAG_LENGTH + " characters, not " + tag.length());
    }
    if (tag.chars().anyMatch(Character::isISOControl)) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "A query_tag cannot hold control characters");
    }
    return tag;
  }

  private static PreparedCommand command(java.util.function.UnaryOperator<Session> change) {
    return new PreparedCommand() {
      @Override
      public boolean runsInTransaction() {
        return true;
      }

      @Override
      public CommandResult execute(CommandContext context, java.util.List<Object> parameters) {
        return CommandResult.session(change);
      }
    };
  }

  private static String catalog(CommandContext context, String name, SqlNode at) {
    return context.catalogs().find(name).map(LakehouseCatalog::name)
        .orElseThrow(() -> error(ErrorCode.NOT_FOUND, "Catalog '" + name + "' does not exist", at));
  }

  private static String schema(CommandContext context, String catalog, String schema, SqlNode at) {
    LakehouseCatalog lakehouse = context.catalogs().find(catalog)
        .orElseThrow(() -> error(ErrorCode.NOT_FOUND, "Catalog '" + catalog + "' does not exist", at));
    if (!lakehouse.schemaExists(schema)) {
      throw error(ErrorCode.NOT_FOUND, "Schema '" + catalog + "." + schema + "' does not exist", at);
    }
    return schema;
  }

  private static ZoneId zone(String value, SqlNode at) {
    try {
      return ZoneId.of(value);
    } catch (DateTimeException e) {
      throw error(ErrorCode.INVALID_ARGUMENT, "Unknown time zone '" + value + "'", at);
    }
  }

  private static Duration timeout(String value, SqlNode at) {
    return DurationText.parseTimeout(value)
        .orElseThrow(() -> error(
            ErrorCode.INVALID_ARGUMENT,
            "Invalid statement_timeout '" + value + "': use a duration such as '30s', '500ms', '5m' or '1h', or 0 for no limit",
            at));
  }

  /**
   * The value of a SET as text: a name, or a literal of any type ({@code 42}, {@code false}) as
   * written; NULL is refused, since no property takes it (RESET returns one to its default).
   */
  private static String text(String name, SqlNode value) {
    if (value instanceof SqlIdentifier) {
      return String.join(".", ((SqlIdentifier) value).names);
    }
    if (value instanceof SqlLiteral) {
      String v = ((SqlLiteral) value).toValue();
      if (v == null) {
        throw error(ErrorCode.INVALID_ARGUMENT, "Session property '" + name + "' cannot be NULL; RESET " + name + " returns it to its default", value);
      }
      return v;
    }
    return value.toString();
  }

  private static SqeException error(ErrorCode code, String message, SqlNode at) {
    SqlParserPos pos = at.getParserPosition();
    return new SqeException(code, message, pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null, null);
  }
}
