package io.sqe.flight.console;

import static io.sqe.flight.console.Html.badge;
import static io.sqe.flight.console.Html.bar;
import static io.sqe.flight.console.Html.csrfField;
import static io.sqe.flight.console.Html.text;

import io.sqe.engine.exec.TrackedQuery;
import io.sqe.engine.session.Principal;
import io.sqe.flight.console.Html.Section;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The console's pages as HTML; each value escaped, the figures formatted by the views. */
final class ConsolePages {
  /** A statement filter of the queries page: each empty or null for all. */
  record Filter(String user, String state, String tag) {
    boolean accepts(QueryView query) {
      return (blank(user) || user.equals(query.user()))
          && (blank(state) || state.equalsIgnoreCase(query.state()))
          && (blank(tag) || (query.tag() != null && query.tag().contains(tag)));
    }

    private static boolean blank(String value) {
      return value == null || value.isBlank();
    }
  }

  /** A client session as the sessions page lists it. */
  record SessionRow(String id, String user, String catalog, String schema, String tag, String created, String lastUsed, long running) {}

  /** A cache as the caches page lists it; the counts empty when the cache keeps no statistics. */
  record CacheRow(String name, String entries, String hits, String misses, Double hitRate, String evictions) {}

  /** A fact on the server page: its name, its value, and whether it is fine (null: neither). */
  record Fact(String name, String value, Boolean ok) {}

  private ConsolePages() {}

  static String login(String error, String user) {
    StringBuilder body = new StringBuilder();
    body.append("<section class=\"login\"><h1>Log in to SQE</h1>")
        .append("<p class=\"hint\">The same user and password as for JDBC, ADBC or dbt.</p>");
    if (error != null) {
      body.append("<p class=\"error\" id=\"login-error\">").append(text(error)).append("</p>");
    }
    body.append("<form method=\"post\" action=\"/ui/login\" id=\"login\">")
        .append("<label>User<input name=\"user\" id=\"user\" autocomplete=\"username\" required value=\"").append(text(user)).append("\"></label>")
        .append("<label>Password<input name=\"password\" id=\"password\" type=\"password\" autocomplete=\"current-password\" required></label>")
        .append("<button type=\"submit\" class=\"primary\" id=\"login-submit\">Log in</button></form></section>");
    return Html.page("Log in", null, null, null, body.toString());
  }

  static String queries(Principal user, String csrf, List<QueryView> queries, Filter filter) {
    StringBuilder body = new StringBuilder();
    body.append("<div class=\"cards\" id=\"summary\">");
    for (TrackedQuery.State state : List.of(
        TrackedQuery.State.RUNNING, TrackedQuery.State.QUEUED, TrackedQuery.State.FINISHED, TrackedQuery.State.FAILED,
        TrackedQuery.State.CANCELLED)) {
      long count = queries.stream().filter(q -> q.state().equals(state.name())).count();
      body.append("<div class=\"card\"><div class=\"figure\" data-count=\"").append(state.name()).append("\">").append(count)
          .append("</div><div class=\"label\">").append(state.name().charAt(0)).append(state.name().substring(1).toLowerCase(Locale.ROOT))
          .append("</div></div>");
    }
    body.append("</div>");
    body.append("<form class=\"filters\" method=\"get\" action=\"/ui/queries\">")
        .append("<input name=\"user\" placeholder=\"User\" value=\"").append(text(filter.user())).append("\">")
        .append("<select name=\"state\"><option value=\"\">Any state</option>");
    for (TrackedQuery.State state : TrackedQuery.State.values()) {
      body.append("<option").append(state.name().equalsIgnoreCase(filter.state()) ? " selected" : "").append('>')
          .append(state.name()).append("</option>");
    }
    body.append("</select><input name=\"tag\" placeholder=\"Tag\" value=\"").append(text(filter.tag())).append("\">")
        .append("<button type=\"submit\">Filter</button><a class=\"clear\" href=\"/ui/queries\">Clear</a>")
        .append("<span class=\"live\" id=\"live\">live</span></form>");
    body.append("<table class=\"grid queries\"><thead><tr><th>State</th><th>Query</th><th>User</th><th>Tag</th><th>Source</th>")
        .append("<th>Created (UTC)</th><th class=\"num\">Elapsed</th><th class=\"num\">Rows</th><th class=\"num\">Scanned</th>")
        .append("<th class=\"num\">Peak memory</th><th>Progress</th></tr></thead><tbody id=\"query-rows\">");
    // Newest first, as an operator looks for what runs now.
    for (int i = queries.size() - 1; i >= 0; i--) {
      QueryView q = queries.get(i);
      body.append("<tr data-id=\"").append(text(q.id())).append("\"><td>").append(badge(q.state())).append("</td>")
          .append("<td class=\"sql\"><a href=\"/ui/queries/").append(text(q.id())).append("\">").append(text(q.id())).append("</a>")
          .append("<div class=\"text\" title=\"").append(text(q.sql())).append("\">").append(text(q.sql())).append("</div></td>")
          .append("<td>").append(text(q.user())).append("</td><td>").append(tag(q.tag())).append("</td>")
          .append("<td>").append(text(q.source())).append("</td><td class=\"when\">").append(text(q.created())).append("</td>")
          .append("<td class=\"num\">").append(text(q.elapsed())).append("</td><td class=\"num rows\">").append(text(q.rows())).append("</td>")
          .append("<td class=\"num\">").append(text(q.bytesScanned())).append("</td><td class=\"num\">").append(text(q.peakMemory()))
          .append("</td><td>").append(bar(q.progress(), q.progressText())).append("</td></tr>");
    }
    if (queries.isEmpty()) {
      body.append("<tr class=\"empty\"><td colspan=\"11\">No statements").append(user.isAdmin() ? "" : " of yours")
          .append(" match.</td></tr>");
    }
    body.append("</tbody></table>");
    return Html.page("Queries", Section.QUERIES, user, csrf, body.toString(), "queries.js");
  }

  static String query(Principal user, String csrf, QueryView q, String notice) {
    StringBuilder body = new StringBuilder();
    body.append("<div class=\"title\" id=\"query\" data-id=\"").append(text(q.id())).append("\" data-state=\"").append(text(q.state()))
        .append("\"><h1>Query <code>").append(text(q.id())).append("</code></h1><span id=\"state\">").append(badge(q.state())).append("</span>");
    if (q.killable()) {
      body.append("<form method=\"post\" class=\"kill\" id=\"kill-form\" action=\"/ui/queries/").append(text(q.id())).append("/kill\">")
          .append(csrfField(csrf))
          .append("<input name=\"message\" id=\"kill-message\" placeholder=\"Message to its client (optional)\" maxlength=\"200\">")
          .append("<button type=\"submit\" class=\"danger\" id=\"kill\">Kill query</button></form>");
    }
    body.append("</div>");
    if (notice != null) {
      body.append("<p class=\"notice\">").append(text(notice)).append("</p>");
    }
    if (q.errorCode() != null) {
      body.append("<p class=\"error\" id=\"error\"><b>").append(text(q.errorCode())).append("</b> ").append(text(q.errorMessage())).append("</p>");
    }
    body.append("<div class=\"cards\">");
    card(body, "user", "User", q.user());
    card(body, "elapsed", "Elapsed", q.elapsed());
    card(body, "rows", "Rows returned", q.rows());
    card(body, "bytesScanned", "Scanned", q.bytesScanned());
    card(body, "peakMemory", "Peak memory", q.peakMemory());
    card(body, "spilled", "Spilled", q.spilled());
    body.append("</div><div id=\"progress\">").append(bar(q.progress(), q.progressText())).append("</div>");
    body.append("<div class=\"columns\"><section><h2>Query text</h2><pre class=\"sql\" id=\"sql\">").append(text(q.sql())).append("</pre>");
    body.append("<dl class=\"facts\">");
    fact(body, "Tag", tag(q.tag()));
    fact(body, "Source", text(q.source()));
    fact(body, "Created", text(q.created()) + " UTC");
    body.append("</dl></section><section><h2>Timeline</h2><ol class=\"timeline\" id=\"timeline\">");
    for (QueryView.Phase phase : q.timeline()) {
      body.append("<li class=\"").append(phase.at().isEmpty() ? "pending" : "done").append("\"><span class=\"phase\">")
          .append(text(phase.name())).append("</span><span class=\"at\">").append(text(phase.at()))
          .append("</span><span class=\"after\">").append(text(phase.after())).append("</span></li>");
    }
    body.append("</ol></section></div>");
    body.append("<section><h2>Plan</h2>");
    if (q.plan() == null) {
      body.append("<p class=\"hint\">No plan: the statement is a command, or it has not been planned.</p>");
    } else {
      body.append("<p class=\"hint\">As EXPLAIN ANALYZE prints it: under each columnar operator, the rows and bytes it returned, its batches, the time spent in it alone and the peak of its own memory (live while it runs). Parts on the row runtime show no figures.</p>")
          .append("<pre class=\"plan\" id=\"plan\">").append(text(q.plan())).append("</pre>");
    }
    body.append("</section>");
    return Html.page("Query " + q.id(), Section.QUERIES, user, csrf, body.toString(), "query.js");
  }

  static String sessions(Principal user, String csrf, List<SessionRow> sessions, String notice) {
    StringBuilder body = new StringBuilder("<h1>Sessions</h1>");
    if (notice != null) {
      body.append("<p class=\"notice\">").append(text(notice)).append("</p>");
    }
    body.append("<table class=\"grid\"><thead><tr><th>Session</th><th>User</th><th>Catalog</th><th>Schema</th><th>Tag</th>")
        .append("<th>Created (UTC)</th><th>Last used (UTC)</th><th class=\"num\">Running</th><th></th></tr></thead><tbody>");
    for (SessionRow s : sessions) {
      body.append("<tr data-id=\"").append(text(s.id())).append("\"><td><code>").append(text(s.id())).append("</code></td><td>")
          .append(text(s.user())).append("</td><td>").append(text(s.catalog())).append("</td><td>").append(text(s.schema()))
          .append("</td><td>").append(tag(s.tag())).append("</td><td>").append(text(s.created())).append("</td><td>")
          .append(text(s.lastUsed())).append("</td><td class=\"num\">").append(s.running()).append("</td><td>")
          .append("<form method=\"post\" action=\"/ui/sessions/").append(text(s.id())).append("/kill\">").append(csrfField(csrf))
          .append("<button type=\"submit\" class=\"danger small\">Kill</button></form></td></tr>");
    }
    if (sessions.isEmpty()) {
      body.append("<tr class=\"empty\"><td colspan=\"9\">No open sessions.</td></tr>");
    }
    body.append("</tbody></table>");
    return Html.page("Sessions", Section.SESSIONS, user, csrf, body.toString());
  }

  static String caches(Principal user, String csrf, List<CacheRow> caches) {
    StringBuilder body = new StringBuilder("<h1>Caches</h1>");
    body.append("<table class=\"grid\"><thead><tr><th>Cache</th><th class=\"num\">Entries</th><th class=\"num\">Hits</th>")
        .append("<th class=\"num\">Misses</th><th>Hit rate</th><th class=\"num\">Evictions</th></tr></thead><tbody>");
    for (CacheRow c : caches) {
      body.append("<tr><td>").append(text(c.name())).append("</td><td class=\"num\">").append(text(c.entries()))
          .append("</td><td class=\"num\">").append(text(c.hits())).append("</td><td class=\"num\">").append(text(c.misses()))
          .append("</td><td>")
          .append(bar(c.hitRate(), c.hitRate() == null ? "no lookups" : Math.round(c.hitRate() * 1000) / 10.0 + "%"))
          .append("</td><td class=\"num\">").append(text(c.evictions())).append("</td></tr>");
    }
    body.append("</tbody></table>");
    return Html.page("Caches", Section.CACHES, user, csrf, body.toString());
  }

  static String server(Principal user, String csrf, List<Fact> status, Map<String, String> settings) {
    StringBuilder body = new StringBuilder("<h1>Server</h1><div class=\"cards\">");
    for (Fact fact : status) {
      body.append("<div class=\"card").append(fact.ok() == null ? "" : fact.ok() ? " ok" : " bad").append("\"><div class=\"figure\">")
          .append(text(fact.value())).append("</div><div class=\"label\">").append(text(fact.name())).append("</div></div>");
    }
    body.append("</div><h2>Limits and settings</h2><table class=\"grid narrow\"><tbody>");
    settings.forEach((name, value) ->
        body.append("<tr><th><code>").append(text(name)).append("</code></th><td>").append(text(value)).append("</td></tr>"));
    body.append("</tbody></table>");
    return Html.page("Server", Section.SERVER, user, csrf, body.toString());
  }

  static String error(Principal user, String csrf, String title, String message) {
    String body = "<h1>" + text(title) + "</h1><p class=\"error\" id=\"error\">" + text(message)
        + "</p><p><a href=\"/ui/queries\">Back to the queries</a></p>";
    return Html.page(title, null, user, csrf, body);
  }

  private static String tag(String tag) {
    return tag == null ? "" : "<span class=\"tag\">" + text(tag) + "</span>";
  }

  private static void card(StringBuilder body, String field, String label, String value) {
    body.append("<div class=\"card\"><div class=\"figure\" data-field=\"").append(field).append("\">")
        .append(value == null || value.isEmpty() ? "–" : text(value)).append("</div><div class=\"label\">").append(label)
        .append("</div></div>");
  }

  private static void fact(StringBuilder body, String name, String html) {
    body.append("<dt>").append(name).append("</dt><dd>").append(html.isEmpty() ? "–" : html).append("</dd>");
  }
}
