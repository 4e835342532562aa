package io.sqe.engine.users;

import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.SqeException.SqlPosition;
import io.sqe.engine.command.CommandContext;
import io.sqe.engine.command.CommandExecutor;
import io.sqe.engine.command.CommandResult;
import io.sqe.engine.command.PreparedCommand;
import io.sqe.engine.session.Principal;
import io.sqe.engine.sql.ddl.SqlAlterUser;
import io.sqe.engine.sql.ddl.SqlCreateUser;
import io.sqe.engine.sql.ddl.SqlDropUser;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * CREATE USER, ALTER USER and DROP USER. Administrators (the {@value Principal#ADMIN_ROLE} role)
 * manage every user; anyone may change their own password ({@code ALTER USER CURRENT_USER SET
 * PASSWORD}, or their own name). Everything else is PERMISSION_DENIED, decided before whether the
 * user exists is looked at. Errors never quote a password.
 */
public final class UserStatements implements CommandExecutor {
  /** Longer passwords are refused: PBKDF2 costs grow with them, and no login could send them. */
  static final int MAX_PASSWORD_LENGTH = 1024;

  private final Supplier<LocalUsers> users;

  /** @param users the local users, asked for when a statement runs (a server opens them while starting) */
  public UserStatements(Supplier<LocalUsers> users) {
    this.users = requireNonNull(users, "users is null");
  }

  @Override
  public Optional<PreparedCommand> prepare(CommandContext context, SqlNode statement) {
    Principal caller = context.session().principal();
    if (statement instanceof SqlCreateUser) {
      SqlCreateUser create = (SqlCreateUser) statement;
      requireAdmin(caller, "create users", create);
      String user = name(create.name());
      Set<String> roles = roles(create.roles());
      String password = password(create.password(), create.passwordPosition());
      return Optional.of((ctx, parameters) -> {
        boolean created = change(users -> withPassword(password, chars -> users.create(user, chars, roles)));
        if (!created && !create.ifNotExists) {
          throw error(ErrorCode.ALREADY_EXISTS, "User '" + user + "' already exists", create.name());
        }
        return CommandResult.rows(0);
      });
    }
    if (statement instanceof SqlAlterUser) {
      SqlAlterUser alter = (SqlAlterUser) statement;
      String user = alter.name() == null ? caller.user() : name(alter.name());
      SqlNode at = alter.name() == null ? alter : alter.name();
      if (alter.setsPassword()) {
        if (!caller.isAdmin() && !user.equals(caller.user())) {
          throw error(ErrorCode.PERMISSION_DENIED,
              "Access denied: only administrators (role '" + Principal.ADMIN_ROLE + "') can change another user's password", at);
        }
        String password = password(alter.password(), alter.passwordPosition());
        return Optional.of((ctx, parameters) -> {
          if (!change(users -> withPassword(password, chars -> users.setPassword(user, chars)))) {
            throw missing(user, at);
          }
          return CommandResult.rows(0);
        });
      }
      requireAdmin(caller, "change roles", alter);
      Set<String> roles = roles(alter.roles());
      return Optional.of((ctx, parameters) -> {
        if (!change(users -> users.setRoles(user, roles))) {
          throw missing(user, at);
        }
        return CommandResult.rows(0);
      });
    }
    if (statement instanceof SqlDropUser) {
      SqlDropUser drop = (SqlDropUser) statement;
      requireAdmin(caller, "drop users", drop);
      String user = name(drop.name());
      if (user.equals(caller.user())) {
        throw error(ErrorCode.FAILED_PRECONDITION, "The current user cannot be dropped", drop.name());
      }
      return Optional.of((ctx, parameters) -> {
        if (!change(users -> users.drop(user)) && !drop.ifExists) {
          throw missing(user, drop.name());
        }
        return CommandResult.rows(0);
      });
    }
    return Optional.empty();
  }

  private String name(SqlIdentifier identifier) {
    String name = identifier.getSimple();
    try {
      localUsers().checkName(name);
    } catch (IllegalArgumentException e) {
      throw error(ErrorCode.INVALID_ARGUMENT,
          e.getMessage() + " (a user name is letters, digits and . _ @ + -, starting with a letter or digit; quote it"
              + " in double quotes when it is not a plain identifier)",
          identifier);
    }
    return name;
  }

  private Set<String> roles(SqlNodeList list) {
    Set<String> roles = new LinkedHashSet<>();
    for (SqlNode node : list) {
      String role = ((SqlIdentifier) node).getSimple();
      try {
        localUsers().checkRoles(Set.of(role));
      } catch (IllegalArgumentException e) {
        throw error(ErrorCode.INVALID_ARGUMENT, e.getMessage(), node);
      }
      roles.add(role);
    }
    return Set.copyOf(roles);
  }

  private static String password(String password, SqlParserPos at) {
    if (password.isEmpty()) {
      throw error(ErrorCode.INVALID_ARGUMENT, "The password is empty", at);
    }
    if (password.length() > MAX_PASSWORD_LENGTH) {
      throw error(ErrorCode.INVALID_ARGUMENT, "A password has at most " + MAX_PASSWORD_LENGTH + " characters", at);
    }
    return password;
  }

  /** Hands the password over as characters that are cleared afterwards. */
  private static boolean withPassword(String password, Predicate<char[]> use) {
    char[] chars = password.toCharArray();
    try {
      return use.test(chars);
    } finally {
      Arrays.fill(chars, '\0');
    }
  }

  private boolean change(Predicate<LocalUsers> change) {
    try {
      return change.test(localUsers());
    } catch (UncheckedIOException e) {
      throw new SqeException(ErrorCode.INTERNAL, "Cannot change the users file: " + e.getCause().getMessage(), e);
    }
  }

  private LocalUsers localUsers() {
    return users.get();
  }

  private static void requireAdmin(Principal caller, String what, SqlNode statement) {
    if (!caller.isAdmin()) {
      throw error(ErrorCode.PERMISSION_DENIED,
          "Access denied: only administrators (role '" + Principal.ADMIN_ROLE + "') can " + what, statement);
    }
  }

  private static SqeException missing(String user, SqlNode at) {
    return error(ErrorCode.NOT_FOUND, "User '" + user + "' does not exist", at);
  }

  private static SqeException error(ErrorCode code, String message, SqlNode at) {
    return error(code, message, at.getParserPosition());
  }

  private static SqeException error(ErrorCode code, String message, SqlParserPos pos) {
    return new SqeException(code, message, pos.getLineNum() > 0 ? new SqlPosition(pos.getLineNum(), pos.getColumnNum()) : null, null);
  }
}
