package io.sqe.flight.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sqe.flight.testing.RunningStatements;
import io.sqe.flight.testing.TestServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
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
  private static final String ALICE = ConsoleUsers.ALICE;
  private static final String BOB = ConsoleUsers.BOB;
  private static final String PASSWORD = ConsoleUsers.PASSWORD;
  /** Hundreds of millions of row pairs: runs far longer than any test waits, unless stopped. */
  private static final String ENDLESS = "select count(*), max(a.label || b.label) from s.numbers a cross join s.numbers b";

  @TempDir static Path dir;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(dir, Map.of("http.port", "0"));
    ConsoleUsers.prepare(server);
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
      CompletableFuture<Void> endless = RunningStatements.runAsync(alice, ENDLESS);
      String id = RunningStatements.awaitRunning(admin, ENDLESS);
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
  void aFinishedQuerysPageShowsEachOperatorsFiguresAndItsWholeTimeline() throws Exception {
    String sql = "select n, label from s.numbers where n % 7 = 3 order by n desc limit 1000";
    try (Connection alice = connect(ALICE)) {
      int returned = ConsoleUsers.rows(alice, sql).size();
      String id = (String) ConsoleUsers.rows(alice,
          "select query_id from system.runtime.queries where query = '" + sql.replace("'", "''") + "'").get(0).get(0);
      ConsoleClient browser = new ConsoleClient(httpPort());
      browser.logIn(ALICE, PASSWORD);
      String body = browser.get("/ui/queries/" + id).body();
      String plan = body.substring(body.indexOf("id=\"plan\""));
      plan = plan.substring(0, plan.indexOf("</pre>"));
      // The filter keeps a seventh of the 20,000 numbers; the top of the plan returns what the client read.
      List<String> lines = List.of(plan.split("\n"));
      int filter = lines.indexOf(lines.stream().filter(line -> line.contains("SqeFilter(")).findFirst().orElseThrow());
      assertThat(lines.get(filter + 1)).as(plan).contains(String.format(java.util.Locale.ROOT, "Output: %,d rows", 20_000 / 7));
      assertThat(lines.get(1)).as(plan).contains("Output: " + String.format(java.util.Locale.ROOT, "%,d", returned) + " rows");
      // Its timeline reaches the last batch and the closing of the client's stream.
      String timeline = body.substring(body.indexOf("id=\"timeline\""), body.indexOf("</ol>", body.indexOf("id=\"timeline\"")));
      assertThat(timeline)
          .contains("<li class=\"done\"><span class=\"phase\">Last batch</span>")
          .contains("<li class=\"done\"><span class=\"phase\">Closed</span>");
    }
  }

  @Test
  void aUserSeesAndKillsOnlyTheirOwnQueries() throws Exception {
    try (Connection alice = connect(ALICE); Connection admin = connect(TestServer.ADMIN)) {
      CompletableFuture<Void> endless = RunningStatements.runAsync(alice, ENDLESS);
      String id = RunningStatements.awaitRunning(admin, ENDLESS);
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
      ConsoleUsers.execute(alice, "SET SESSION query_tag = '<img src=x onerror=alert(1)>'");
      String sql = "select '<script>alert(1)</script>' as x";
      ConsoleUsers.rows(alice, sql);
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
      ConsoleUsers.rows(alice, "select count(*) from s.numbers where n < 42");
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
      ConsoleUsers.rows(alice, "select 1");
      String session = (String) ConsoleUsers.rows(admin,
          "select session_id from system.runtime.sessions where \"user\" = 'alice' order by last_used desc").get(0).get(0);
      ConsoleClient bob = new ConsoleClient(httpPort());
      bob.logIn(BOB, PASSWORD);
      assertThat(bob.get("/ui/sessions").body()).doesNotContain(session);
      assertThat(bob.submit("/ui/sessions", "/ui/sessions/" + session + "/kill", Map.of()).statusCode()).isEqualTo(403);

      ConsoleClient browser = new ConsoleClient(httpPort());
      browser.logIn(TestServer.ADMIN, server.adminPassword());
      assertThat(browser.get("/ui/sessions").body()).contains(session).contains(">alice<");
      assertThat(browser.submit("/ui/sessions", "/ui/sessions/" + session + "/kill", Map.of()).statusCode()).isEqualTo(303);
      assertThat(ConsoleUsers.rows(admin, "select session_id from system.runtime.sessions where session_id = '" + session + "'")).isEmpty();
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

  private static int httpPort() {
    return server.server().httpPort().orElseThrow();
  }

  private static Connection connect(String user) throws SQLException {
    return ConsoleUsers.connect(server, user);
  }
}
