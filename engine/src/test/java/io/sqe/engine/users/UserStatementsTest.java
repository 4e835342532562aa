package io.sqe.engine.users;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.engine.EmbeddedLake;
import io.sqe.engine.EngineConfig;
import io.sqe.engine.ErrorCode;
import io.sqe.engine.Prepared;
import io.sqe.engine.QueryEngine;
import io.sqe.engine.SqeException;
import io.sqe.engine.session.Principal;
import io.sqe.engine.session.Session;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CREATE, ALTER and DROP USER through the engine, over users kept in memory (the server's user
 * store has tests of its own): who may do what, the errors, and that no password reaches the
 * text the engine keeps of a running statement (SHOW QUERIES) or any error.
 */
class UserStatementsTest {
  private static final String SECRET = "S3cr3t-pw";

  @RegisterExtension final EmbeddedLake lake = EmbeddedLake.withSchemaS();

  private final Users users = new Users();
  private QueryEngine engine;
  private final Session admin = session("root", "admin");
  private final Session bob = session("bob");

  @BeforeEach
  void setUp() {
    engine = new QueryEngine(lake.catalogs(), lake.allocator(), EngineConfig.DEFAULT, List.of(new UserStatements(() -> users)));
    users.passwords.put("root", "root-pw");
    users.roles.put("root", Set.of("admin"));
  }

  @Test
  void anAdminCreatesAUserAndNoTextTheEngineKeepsHoldsThePassword() {
    users.duringChange = () -> users.runningStatements.addAll(showQueries());
    Prepared.Command create = command(admin, "CREATE USER bob WITH PASSWORD '" + SECRET + "' ROLES (analyst, 'data-eng')");
    assertThat(create.sql()).isEqualTo("CREATE USER \"bob\" PASSWORD '***' ROLES (\"analyst\", \"data-eng\")");
    engine.run(admin, create, List.of(), "q-1");

    assertThat(users.passwords).containsEntry("bob", SECRET);
    assertThat(users.roles).containsEntry("bob", Set.of("analyst", "data-eng"));
    // SHOW QUERIES, run while the statement was changing the users, showed it with the password masked.
    assertThat(users.runningStatements).singleElement().satisfies(row -> {
      assertThat(row[0]).isEqualTo("q-1");
      assertThat((String) row[6]).isEqualTo(create.sql()).doesNotContain(SECRET);
    });
  }

  @Test
  void everyoneChangesTheirOwnPasswordOnly() {
    users.passwords.put("bob", "old");
    users.roles.put("bob", Set.of());
    run(bob, "ALTER USER CURRENT_USER SET PASSWORD 'first'");
    assertThat(users.passwords).containsEntry("bob", "first");
    run(bob, "alter user bob set password 'second'");
    assertThat(users.passwords).containsEntry("bob", "second");
    run(bob, "ALTER USER bob WITH PASSWORD '" + SECRET + "'");
    assertThat(users.passwords).containsEntry("bob", SECRET);

    // Whether the other user exists is not told.
    assertRefused(bob, "ALTER USER root SET PASSWORD '" + SECRET + "'", ErrorCode.PERMISSION_DENIED,
        "Access denied: only administrators (role 'admin') can change another user's password");
    assertRefused(bob, "ALTER USER nobody SET PASSWORD '" + SECRET + "'", ErrorCode.PERMISSION_DENIED,
        "Access denied: only administrators (role 'admin') can change another user's password");
    assertRefused(bob, "CREATE USER carol PASSWORD '" + SECRET + "'", ErrorCode.PERMISSION_DENIED,
        "Access denied: only administrators (role 'admin') can create users");
    assertRefused(bob, "ALTER USER bob SET ROLES (admin)", ErrorCode.PERMISSION_DENIED,
        "Access denied: only administrators (role 'admin') can change roles");
    assertRefused(bob, "DROP USER root", ErrorCode.PERMISSION_DENIED,
        "Access denied: only administrators (role 'admin') can drop users");
    assertThat(users.passwords).containsOnlyKeys("root", "bob").containsEntry("root", "root-pw");
    assertThat(users.roles).containsEntry("bob", Set.of());
  }

  @Test
  void anAdminManagesEveryUser() {
    run(admin, "CREATE USER \"Carol@example.com\" PASSWORD 'pw'");
    run(admin, "ALTER USER \"Carol@example.com\" SET ROLES (writer, analyst)");
    assertThat(users.roles).containsEntry("Carol@example.com", Set.of("writer", "analyst"));
    run(admin, "ALTER USER \"Carol@example.com\" SET ROLES ()");
    assertThat(users.roles).containsEntry("Carol@example.com", Set.of());
    run(admin, "ALTER USER \"Carol@example.com\" SET PASSWORD 'reset'");
    assertThat(users.passwords).containsEntry("Carol@example.com", "reset");
    run(admin, "DROP USER \"Carol@example.com\"");
    assertThat(users.passwords).containsOnlyKeys("root");
  }

  @Test
  void errorsSayWhatIsWrongWhereAndNeverQuoteThePassword() {
    run(admin, "CREATE USER bob PASSWORD 'pw'");
    assertRefused(admin, "CREATE USER bob PASSWORD '" + SECRET + "'", ErrorCode.ALREADY_EXISTS, "User 'bob' already exists");
    run(admin, "CREATE USER IF NOT EXISTS bob PASSWORD '" + SECRET + "'");
    assertThat(users.passwords).containsEntry("bob", "pw");

    assertRefused(admin, "ALTER USER nobody SET PASSWORD '" + SECRET + "'", ErrorCode.NOT_FOUND, "User 'nobody' does not exist");
    assertRefused(admin, "ALTER USER nobody SET ROLES (a)", ErrorCode.NOT_FOUND, "User 'nobody' does not exist");
    assertRefused(admin, "DROP USER nobody", ErrorCode.NOT_FOUND, "User 'nobody' does not exist");
    run(admin, "DROP USER IF EXISTS nobody");
    assertRefused(admin, "DROP USER root", ErrorCode.FAILED_PRECONDITION, "The current user cannot be dropped");
    // A user of the identity provider has no password here to change.
    assertRefused(session("oidc-user"), "ALTER USER CURRENT_USER SET PASSWORD '" + SECRET + "'", ErrorCode.NOT_FOUND,
        "User 'oidc-user' does not exist");

    assertRefused(admin, "CREATE USER carol PASSWORD ''", ErrorCode.INVALID_ARGUMENT, "The password is empty");
    assertRefused(admin, "CREATE USER carol PASSWORD '" + "x".repeat(1025) + "'", ErrorCode.INVALID_ARGUMENT,
        "A password has at most 1024 characters");
    assertRefused(admin, "CREATE USER \"a b\" PASSWORD '" + SECRET + "'", ErrorCode.INVALID_ARGUMENT, "Invalid user name: a b");
    assertRefused(admin, "CREATE USER carol PASSWORD '" + SECRET + "' ROLES ('no good')", ErrorCode.INVALID_ARGUMENT,
        "Invalid role name: no good");
    assertThat(users.passwords).containsOnlyKeys("root", "bob");
  }

  /** The statements SHOW QUERIES lists besides itself (it lists itself while it is planned). */
  private List<Object[]> showQueries() {
    return ((Prepared.Rows) engine.prepare(admin, "SHOW QUERIES")).rows().stream()
        .filter(row -> !"SHOW QUERIES".equals(row[6]))
        .toList();
  }

  private Prepared.Command command(Session session, String sql) {
    return (Prepared.Command) engine.prepare(session, sql);
  }

  private void run(Session session, String sql) {
    engine.run(session, command(session, sql), List.of(), "q");
  }

  private void assertRefused(Session session, String sql, ErrorCode code, String message) {
    assertThatThrownBy(() -> run(session, sql))
        .as(sql)
        .isInstanceOfSatisfying(SqeException.class, e -> {
          assertThat(e.code()).isEqualTo(code);
          assertThat(e.getMessage()).startsWith(message).doesNotContain(SECRET);
          assertThat(e.position()).as("position of the error in %s", sql).isPresent();
        });
  }

  private static Session session(String user, String... roles) {
    return new Session(new Principal(user, Set.of(roles)), "lake", "s", ZoneOffset.UTC);
  }

  /** Users in memory, with the checks of the server's user store. */
  private static final class Users implements LocalUsers {
    final Map<String, String> passwords = new LinkedHashMap<>();
    final Map<String, Set<String>> roles = new LinkedHashMap<>();
    final List<Object[]> runningStatements = new ArrayList<>();
    Runnable duringChange = () -> {};

    @Override
    public void checkName(String user) {
      if (!user.matches("[A-Za-z0-9][A-Za-z0-9._@+-]*")) {
        throw new IllegalArgumentException("Invalid user name: " + user);
      }
    }

    @Override
    public void checkRoles(Set<String> names) {
      for (String role : names) {
        if (!role.matches("[A-Za-z0-9][A-Za-z0-9._@+-]*")) {
          throw new IllegalArgumentException("Invalid role name: " + role);
        }
      }
    }

    @Override
    public boolean create(String user, char[] password, Set<String> userRoles) {
      duringChange.run();
      if (passwords.containsKey(user)) {
        return false;
      }
      passwords.put(user, new String(password));
      roles.put(user, userRoles);
      return true;
    }

    @Override
    public boolean setPassword(String user, char[] password) {
      return passwords.replace(user, new String(password)) != null;
    }

    @Override
    public boolean setRoles(String user, Set<String> userRoles) {
      return roles.replace(user, userRoles) != null;
    }

    @Override
    public boolean drop(String user) {
      roles.remove(user);
      return passwords.remove(user) != null;
    }
  }
}
