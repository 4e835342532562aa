package io.sqe.flight.console;

import static io.sqe.flight.console.ConsoleUsers.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.sqe.flight.testing.RunningStatements;
import io.sqe.flight.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web console in a real browser: Debian's Chromium, headless, driven through its chromedriver
 * by Selenium. An admin logs in with the form, watches another user's long query (started through
 * the Flight SQL JDBC driver) progress on the live queries page and on its own page, reads its plan,
 * and kills it, whose client then gets the kill's message; a user without the admin role does not
 * see it. The pages are saved as screenshots ({@code -Dconsole.screenshots=DIR}, by default
 * target/console-screenshots) for docs/deploy.md.
 */
class ConsoleBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  /** Streams hundreds of millions of rows: the client reads them until the query is killed. */
  private static final String LONG = "select a.n, b.n as m, a.label from s.numbers a cross join s.numbers b";
  private static final Duration WAIT = ConsoleUsers.WAIT;

  @TempDir static Path dir;
  private static TestServer server;
  private static Path screenshots;
  private WebDriver browser;

  @BeforeAll
  static void start() throws Exception {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      String missing = "Chromium and its driver are not installed (apt-get install -y chromium chromium-driver)";
      if (System.getenv("CI") != null) {
        fail(missing + "; .ci/run installs them");
      }
      Assumptions.abort(missing + ": the browser test of the web console is skipped");
    }
    server = TestServer.start(dir, Map.of("http.port", "0"));
    ConsoleUsers.prepare(server);
    screenshots = Path.of(System.getProperty("console.screenshots", "target/console-screenshots"));
    Files.createDirectories(screenshots);
  }

  @AfterAll
  static void stop() throws Exception {
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void openBrowser() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1440,900");
    ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
  }

  @AfterEach
  void closeBrowser() {
    browser.quit();
  }

  @Test
  void anAdminWatchesAnotherUsersLongQueryReadsItsPlanAndKillsIt() throws Exception {
    try (Connection alice = connect(ConsoleUsers.ALICE); Connection admin = connect(TestServer.ADMIN)) {
      execute(alice, "SET SESSION query_tag = 'nightly-report'");
      AtomicLong read = new AtomicLong();
      CompletableFuture<Void> query = stream(alice, LONG, read);
      String id = RunningStatements.awaitRunning(admin, LONG);

      logIn(TestServer.ADMIN, server.adminPassword());
      WebDriverWait wait = live(browser);
      By row = By.cssSelector("tr[data-id='" + id + "']");
      String listed = wait.until(driver -> driver.findElement(row).getText());
      assertThat(listed).contains("RUNNING").contains(ConsoleUsers.ALICE).contains("nightly-report");
      // The page reloads its table every second: the rows the query has returned go up.
      String before = wait.until(driver -> rowsOf(row));
      wait.until(driver -> !rowsOf(row).equals(before) && !rowsOf(row).isEmpty());
      shoot("console-queries");

      wait.until(driver -> {
        driver.findElement(row).findElement(By.linkText(id)).click();
        return true;
      });
      wait.until(ExpectedConditions.presenceOfElementLocated(By.id("plan")));
      assertThat(browser.findElement(By.id("sql")).getText()).isEqualTo(LONG);
      assertThat(browser.findElement(By.id("plan")).getText()).containsIgnoringCase("join").containsIgnoringCase("scan");
      assertThat(browser.findElement(By.id("timeline")).getText()).contains("Planned", "Started", "First batch", "Last batch", "Closed");
      // The plan's per-operator figures move while the query runs.
      String plan = wait.until(driver -> {
        String text = driver.findElement(By.id("plan")).getText();
        return text.contains("Output: ") ? text : null;
      });
      wait.until(driver -> !driver.findElement(By.id("plan")).getText().equals(plan));
      By figure = By.cssSelector("[data-field='rows']");
      String shown = wait.until(driver -> driver.findElement(figure).getText());
      wait.until(driver -> !driver.findElement(figure).getText().equals(shown));
      shoot("console-query");

      browser.findElement(By.id("kill-message")).sendKeys("stop before the morning load");
      browser.findElement(By.id("kill")).click();
      wait.until(ExpectedConditions.textToBe(By.cssSelector("#state .badge"), "CANCELLED"));
      assertThat(browser.findElement(By.id("error")).getText()).contains("Query killed. Message: stop before the morning load");
      assertThat(browser.findElements(By.id("kill"))).isEmpty();
      assertThatThrownBy(query::join).hasStackTraceContaining("Query killed. Message: stop before the morning load");
      assertThat(read.get()).isPositive();
      shoot("console-killed");

      for (String page : new String[] {"sessions", "caches", "server"}) {
        browser.findElement(By.linkText(page.substring(0, 1).toUpperCase() + page.substring(1))).click();
        wait.until(ExpectedConditions.titleContains(page.substring(0, 1).toUpperCase() + page.substring(1)));
        shoot("console-" + page);
      }
    }
  }

  @Test
  void aUserWithoutTheAdminRoleSeesOnlyTheirOwnQueries() throws Exception {
    try (Connection alice = connect(ConsoleUsers.ALICE); Connection admin = connect(TestServer.ADMIN)) {
      AtomicLong read = new AtomicLong();
      CompletableFuture<Void> query = stream(alice, LONG, read);
      String id = RunningStatements.awaitRunning(admin, LONG);
      try {
        logIn(ConsoleUsers.BOB, ConsoleUsers.PASSWORD);
        WebDriverWait wait = live(browser);
        // Two refreshes of the live table, neither with Alice's query.
        wait.until(ExpectedConditions.textToBe(By.id("live"), "live"));
        Thread.sleep(2_100);
        assertThat(browser.findElements(By.cssSelector("tr[data-id='" + id + "']"))).isEmpty();
        assertThat(browser.findElement(By.id("query-rows")).getText()).doesNotContain(ConsoleUsers.ALICE);
        browser.get(url("/ui/queries/" + id));
        assertThat(browser.findElement(By.id("error")).getText()).contains("belongs to another user");
        assertThat(browser.getPageSource()).doesNotContain("cross join");
      } finally {
        execute(admin, "CALL system.kill_query('" + id + "')");
        assertThatThrownBy(query::join).hasStackTraceContaining("Query killed");
      }
    }
  }

  private static Connection connect(String user) throws SQLException {
    return ConsoleUsers.connect(server, user);
  }

  private void logIn(String user, String password) {
    browser.get(url("/ui/queries"));
    new WebDriverWait(browser, WAIT).until(ExpectedConditions.presenceOfElementLocated(By.id("login")));
    browser.findElement(By.id("user")).sendKeys(user);
    browser.findElement(By.id("password")).sendKeys(password);
    shootOnce("console-login");
    browser.findElement(By.id("login-submit")).click();
    new WebDriverWait(browser, WAIT).until(ExpectedConditions.textToBe(By.id("current-user"), user));
  }

  /** A wait that looks again when the page has just replaced what it looked at (the live table does every second). */
  private static WebDriverWait live(WebDriver driver) {
    WebDriverWait wait = new WebDriverWait(driver, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
    return wait;
  }

  private String rowsOf(By row) {
    return browser.findElement(row).findElement(By.cssSelector("td.rows")).getText();
  }

  private String url(String path) {
    return "http://127.0.0.1:" + server.server().httpPort().orElseThrow() + path;
  }

  private void shoot(String name) throws Exception {
    byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(screenshots.resolve(name + ".png"), png);
  }

  private void shootOnce(String name) {
    if (Files.exists(screenshots.resolve(name + ".png"))) {
      return;
    }
    try {
      shoot(name);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Reads every row of a query on another thread, counting them, until the query ends or fails. */
  private static CompletableFuture<Void> stream(Connection connection, String sql, AtomicLong read) {
    return CompletableFuture.runAsync(() -> {
      try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
        while (rows.next()) {
          read.incrementAndGet();
        }
      } catch (SQLException e) {
        throw new RuntimeException(e);
      }
    });
  }
}
