package io.sqe.flight.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.NumberTable;
import io.sqe.flight.testing.TestServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console over plain HTTP, as a browser speaks to it, against a real server whose users run
 * statements through the Flight SQL JDBC driver: the login form and its cookie, the CSRF token every
 * form must carry, who sees and kills what (the rules of system.runtime and kill_query), escaping of
 * user input, bearer tokens for scripts, and the plan on a query's page.
 */
class WebConsoleTest {
  static final String ALICE = "alice";
  static final String BOB = "bob";
  static final String PASSWORD = "a-long-enough-password";
  /** Hundreds of millions of row pairs: runs far longer than any test waits, unless stopped. */
  static final String ENDLESS = "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";
  static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("http.port", "0"));
    NumberTable.create(server.server().catalogs().find("iceberg").orElseThrow(), "s", "numbers", 20_000, 2_500);
    server.server().authentication().users().addUser(ALICE, PASSWORD.toCharArray(), Set.of());
    server.server().authentication().users().addUser(BOB, PASSWORD.toCharArray(), Set.of());
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  @Test
  void aPasswordLoginGivesAStrictHttpOnlyCookieThatLogOutEnds() throws Exception {
    ConsoleClient browser = new ConsoleClient(httpPort());
    HttpResponse<String> anonymous = browser.get("/ui/queries");
    assertThat(anonymous.statusCode()).isEqualTo(303);
    assertThat(anonymous.headers().firstValue("Location")).hasValue("/ui/login");
    assertThat(browser.get("/ui/api/queries").statusCode()).isEqualTo(401);

    HttpResponse<String> wrong = browser.logIn(ALICE, "not her password");
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).contains("Wrong user name or password");
    assertThat(wrong.headers().firstValue("Set-Cookie")).isEmpty();

    HttpResponse<String> right = browser.logIn(ALICE, PASSWORD);
    assertThat(right.statusCode()).isEqualTo(303);
    assertThat(right.headers().firstValue("Set-Cookie")).hasValueSatisfying(cookie -> assertThat(cookie)
        .startsWith("sqe_console=")
        .contains("HttpOnly", "SameSite=Strict", "Path=/ui")
        .doesNotContain(PASSWORD));
    HttpResponse<String> page = browser.get("/ui/queries");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("id=\"current-user\">alice<");
    assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp).contains("script-src 'self'"));

    assertThat(browser.submit("/ui/queries", "/ui/logout", Map.of()).statusCode()).isEqualTo(303);
    assertThat(browser.get("/ui/queries").statusCode()).isEqualTo(303);
  }

  @Test
  void anAdminKillsAnotherUsersQueryFromItsPageWithTheFormsToken() throws Exception {
    try (Connection alice = connect(ALICE); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      ConsoleClient browser = new ConsoleClient(httpPort());
      browser.logIn(TestServer.ADMIN, server.adminPassword());

      HttpResponse<String> page = browser.get("/ui/queries/" + id);
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).contains("RUNNING").contains("id=\"kill\"").contains("cross join s.numbers b");
      String plan = page.body().substring(page.body().indexOf("id=\"plan\""));
      assertThat(plan.substring(0, plan.indexOf("</pre>"))).as("the plan").containsIgnoringCase("join").containsIgnoringCase("scan");

      // Without the page's token (a form posted from another site), nothing happens.
      HttpResponse<String> forged = browser.post("/ui/queries/" + id + "/kill", Map.of("message", "forged"));
      assertThat(forged.statusCode()).isEqualTo(403);
      assertThat(endless).isNotDone();

      HttpResponse<String> killed = browser.submit("/ui/queries/" + id, "/ui/queries/" + id + "/kill", Map.of("message", "too big for the morning"));
      assertThat(killed.statusCode()).isEqualTo(303);
      assertThatThrownBy(endless::join).hasStackTraceContaining("CANCELLED: Query killed. Message: too big for the morning");
      String after = browser.get(killed.headers().firstValue("Location").orElseThrow()).body();
      assertThat(after).contains("CANCELLED").contains("Query killed. Message: too big for the morning").doesNotContain("id=\"kill\"");
    }
  }

  @Test
  void aUserSeesAndKillsOnlyTheirOwnQueries() throws Exception {
    try (Connection alice = connect(ALICE); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = runAsync(alice, ENDLESS);
      String id = awaitRunning(admin, ENDLESS);
      ConsoleClient bob = new ConsoleClient(httpPort());
      bob.logIn(BOB, PASSWORD);
      assertThat(bob.get("/ui/api/queries").body()).doesNotContain(id).doesNotContain("cross join");
      assertThat(bob.get("/ui/queries").body()).doesNotContain(id);
      HttpResponse<String> page = bob.get("/ui/queries/" + id);
      assertThat(page.statusCode()).isEqualTo(403);
      assertThat(page.body()).contains("belongs to another user").doesNotContain("cross join");
      assertThat(bob.submit("/ui/queries", "/ui/queries/" + id + "/kill", Map.of()).statusCode()).isEqualTo(403);
      assertThat(endless).isNotDone();
      assertThat(bob.get("/ui/queries/no-such-query").statusCode()).isEqualTo(404);

      ConsoleClient owner = new ConsoleClient(httpPort());
      owner.logIn(ALICE, PASSWORD);
      assertThat(owner.get("/ui/api/queries?state=RUNNING").body()).contains(id).contains("cross join");
      assertThat(owner.get("/ui/api/queries?state=FINISHED").body()).doesNotContain(id);
      assertThat(owner.submit("/ui/queries/" + id, "/ui/queries/" + id + "/kill", Map.of()).statusCode()).isEqualTo(303);
      assertThatThrownBy(endless::join).hasStackTraceContaining("CANCELLED: Query killed");
    }
  }

  @Test
  void queryTextsAndTagsAreShownAsTextNeverAsMarkup() throws Exception {
    try (Connection alice = connect(ALICE)) {
      execute(alice, "SET SESSION query_tag = '<img src=x onerror=alert(1)>'");
      String sql = "select '<script>alert(1)</script>' as x";
      rows(alice, sql);
      ConsoleClient browser = new ConsoleClient(httpPort());
      browser.logIn(ALICE, PASSWORD);
      String list = browser.get("/ui/queries?tag=" + java.net.URLEncoder.encode("<img", java.nio.charset.StandardCharsets.UTF_8)).body();
      assertThat(list)
          .contains("&lt;script&gt;alert(1)&lt;/script&gt;")
          .contains("&lt;img src=x onerror=alert(1)&gt;")
          .doesNotContain("<script>alert")
          .doesNotContain("<img src=x");
    }
  }

  @Test
  void aScriptReadsTheJsonWithABearerTokenAndNoCookie() throws Exception {
    try (Connection alice = connect(ALICE)) {
      rows(alice, "select count(*) from s.numbers where n < 42");
    }
    var users = server.server().authentication().users();
    String token = server.server().authentication().tokens()
        .issue(users.principal(ALICE).orElseThrow(), users.account(ALICE).orElseThrow().id());
    ConsoleClient script = new ConsoleClient(httpPort());
    HttpResponse<String> json = script.getWithToken("/ui/api/queries?state=FINISHED", token);
    assertThat(json.statusCode()).isEqualTo(200);
    assertThat(json.body()).contains("where n < 42").contains("\"state\":\"FINISHED\"");
    assertThat(script.getWithToken("/ui/api/queries", "not-a-token").statusCode()).isEqualTo(401);
  }

  @Test
  void sessionsAreListedToTheirUserAndKilledFromThePage() throws Exception {
    try (Connection alice = connect(ALICE); Connection admin = connect(TestServer.ADMIN)) {
      rows(alice, "select 1");
      String session = (String) rows(admin,
          "select session_id from system.runtime.sessions where \"user\" = 'alice' order by last_used desc").get(0).get(0);
      ConsoleClient bob = new ConsoleClient(httpPort());
      bob.logIn(BOB, PASSWORD);
      assertThat(bob.get("/ui/sessions").body()).doesNotContain(session);
      assertThat(bob.submit("/ui/sessions", "/ui/sessions/" + session + "/kill", Map.of()).statusCode()).isEqualTo(403);

      ConsoleClient browser = new ConsoleClient(httpPort());
      browser.logIn(TestServer.ADMIN, server.adminPassword());
      assertThat(browser.get("/ui/sessions").body()).contains(session).contains(">alice<");
      assertThat(browser.submit("/ui/sessions", "/ui/sessions/" + session + "/kill", Map.of()).statusCode()).isEqualTo(303);
      assertThat(rows(admin, "select session_id from system.runtime.sessions where session_id = '" + session + "'")).isEmpty();
    }
  }

  @Test
  void theCacheAndServerPagesShowHitRatesVersionAndLimits() throws Exception {
    ConsoleClient browser = new ConsoleClient(httpPort());
    browser.logIn(ALICE, PASSWORD);
    String caches = browser.get("/ui/caches").body();
    assertThat(caches).contains("Hit rate").contains("sessions");
    String status = browser.get("/ui/server").body();
    assertThat(status).contains(io.sqe.flight.ServerInfo.VERSION).contains("SERVING").contains("server.max-sessions");
  }

  // ---- helpers

  /** Points the helpers at another test's server. */
  static void useServer(TestServer other) {
    server = other;
  }

  private static int httpPort() {
    return server.server().httpPort().orElseThrow();
  }

  static Connection connect(String user) throws SQLException {
    String password = user.equals(TestServer.ADMIN) ? server.adminPassword() : PASSWORD;
    return DriverManager.getConnection(server.jdbcUrl() + "&user=" + user + "&password=" + password);
  }

  static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  static List<List<Object>> rows(Connection connection, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
      int columns = result.getMetaData().getColumnCount();
      while (result.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(result.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  static CompletableFuture<Void> runAsync(Connection connection, String sql) {
    return CompletableFuture.runAsync(() -> {
      try {
        rows(connection, sql);
      } catch (SQLException e) {
        throw new RuntimeException(e);
      }
    });
  }

  /** The id of the running statement with that text, waiting for it to run. */
  static String awaitRunning(Connection admin, String sql) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    String query = "select query_id from system.runtime.queries where state = 'RUNNING' and query = '" + sql.replace("'", "''") + "'";
    while (System.nanoTime() < deadline) {
      List<List<Object>> running = rows(admin, query);
      if (!running.isEmpty()) {
        return (String) running.get(0).get(0);
      }
      Thread.sleep(50);
    }
    throw new AssertionError("No statement running within " + WAIT + ": " + sql);
  }
}
