package io.sqe.flight.console;

import com.google.common.escape.Escaper;
import com.google.common.html.HtmlEscapers;
import io.sqe.engine.session.Principal;
import io.sqe.flight.ServerInfo;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The console's page frame (header bar, navigation, the user and log-out form) and the escaping
 * and number formats its pages share. Every value a page shows goes through {@link #text}: query
 * texts, tags, user names and error messages are anyone's input.
 */
final class Html {
  private static final Escaper ESCAPER = HtmlEscapers.htmlEscaper();
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
  private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

  /** The console's sections, in the order of the navigation bar. */
  enum Section {
    QUERIES("Queries", "/ui/queries"),
    SESSIONS("Sessions", "/ui/sessions"),
    CACHES("Caches", "/ui/caches"),
    SERVER("Server", "/ui/server");

    final String title;
    final String path;

    Section(String title, String path) {
      this.title = title;
      this.path = path;
    }
  }

  private Html() {}

  /** A value as HTML text or attribute content; null as the empty string. */
  static String text(String value) {
    return value == null ? "" : ESCAPER.escape(value);
  }

  /**
   * A whole page: the header bar with the navigation, the user and the log-out form, then {@code
   * body}, which must be escaped HTML already.
   *
   * @param user the logged-in user; null on the login page
   * @param csrf the login's CSRF token for the page's forms; null on the login page
   */
  static String page(String title, Section active, Principal user, String csrf, String body, String... scripts) {
    StringBuilder html = new StringBuilder(4096 + body.length());
    html.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>").append(text(title)).append(" · SQE</title>")
        .append("<link rel=\"stylesheet\" href=\"/ui/static/console.css\"></head><body>")
        .append("<header class=\"bar\"><a class=\"brand\" href=\"/ui/queries\"><span class=\"logo\">SQE</span>")
        .append("<span class=\"version\">").append(text(ServerInfo.VERSION)).append("</span></a>");
    if (user != null) {
      html.append("<nav>");
      for (Section section : Section.values()) {
        html.append("<a href=\"").append(section.path).append('"')
            .append(section == active ? " class=\"active\"" : "").append('>').append(section.title).append("</a>");
      }
      html.append("</nav><div class=\"who\"><span class=\"user\" id=\"current-user\">").append(text(user.user())).append("</span>");
      if (user.isAdmin()) {
        html.append("<span class=\"role\">admin</span>");
      }
      html.append("<form method=\"post\" action=\"/ui/logout\">").append(csrfField(csrf))
          .append("<button class=\"link\" type=\"submit\">Log out</button></form></div>");
    }
    html.append("</header><main>").append(body).append("</main>");
    for (String script : scripts) {
      html.append("<script src=\"/ui/static/").append(script).append("\"></script>");
    }
    return html.append("</body></html>").toString();
  }

  static String csrfField(String csrf) {
    return "<input type=\"hidden\" name=\"csrf\" value=\"" + text(csrf) + "\">";
  }

  /** A state as a coloured badge. */
  static String badge(String state) {
    return "<span class=\"badge " + text(state.toLowerCase(Locale.ROOT)) + "\">" + text(state) + "</span>";
  }

  /** A bar filled to {@code share} (0 to 1); striped and unfilled when the share is unknown. */
  static String bar(Double share, String label) {
    if (share == null) {
      return "<div class=\"progress unknown\"><div class=\"fill\"></div><span>" + text(label) + "</span></div>";
    }
    return "<div class=\"progress\"><div class=\"fill\" style=\"width:" + Math.round(share * 1000) / 10.0 + "%\"></div><span>"
        + text(label) + "</span></div>";
  }

  static String bytes(long bytes) {
    double value = bytes;
    int unit = 0;
    while (value >= 1024 && unit < UNITS.length - 1) {
      value /= 1024;
      unit++;
    }
    return unit == 0 ? bytes + " B" : String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
  }

  static String count(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  static String duration(Duration duration) {
    long millis = duration.toMillis();
    if (millis < 1_000) {
      return millis + " ms";
    }
    if (millis < 60_000) {
      return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
    long seconds = duration.toSeconds();
    if (seconds < 3_600) {
      return seconds / 60 + " min " + seconds % 60 + " s";
    }
    return seconds / 3_600 + " h " + seconds % 3_600 / 60 + " min";
  }

  /** A moment as UTC wall-clock time. */
  static String time(Instant instant) {
    return instant == null ? "" : CLOCK.format(instant);
  }
}
