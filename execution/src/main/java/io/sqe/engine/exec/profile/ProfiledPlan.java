package io.sqe.engine.exec.profile;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A plan as EXPLAIN prints it, one line per node, with the id of each line's node, so that a run's
 * {@link OperatorProfiles} can be printed under the lines of the operators they measured, as
 * Trino's EXPLAIN ANALYZE does.
 */
public final class ProfiledPlan {
  /** A line of Calcite's plan text written with node ids: indentation, {@code id:}, the node. */
  private static final Pattern ID_PREFIXED = Pattern.compile("^( *)(\\d+):(.*)$");

  private final List<Line> lines;

  /**
   * One line of the plan.
   *
   * @param text the line as EXPLAIN prints it
   * @param depth how deep its node is in the tree, the root at 0
   * @param nodeId the id of its node; -1 for a line that continues the one before
   */
  public record Line(String text, int depth, int nodeId) {
    public Line {
      requireNonNull(text, "text is null");
    }
  }

  private ProfiledPlan(List<Line> lines) {
    this.lines = List.copyOf(lines);
  }

  /** A plan without node ids: no figures are printed under its lines. */
  public static ProfiledPlan unprofiled(String explain) {
    List<Line> lines = new ArrayList<>();
    for (String line : explain.split("\n")) {
      lines.add(new Line(line, 0, -1));
    }
    return new ProfiledPlan(lines);
  }

  /**
   * The plan from Calcite's text with ids ({@code RelWriterImpl} with its id prefix): each line's
   * indentation is two spaces a level.
   */
  public static ProfiledPlan fromIdPrefixed(String explain) {
    List<Line> lines = new ArrayList<>();
    int depth = 0;
    for (String line : explain.split("\n")) {
      Matcher m = ID_PREFIXED.matcher(line);
      if (m.matches()) {
        depth = m.group(1).length() / 2;
        lines.add(new Line(m.group(1) + m.group(3), depth, Integer.parseInt(m.group(2))));
      } else {
        lines.add(new Line(line, depth, -1));
      }
    }
    return new ProfiledPlan(lines);
  }

  public List<Line> lines() {
    return lines;
  }

  /** The plan as EXPLAIN prints it. */
  public String text() {
    return String.join("\n", lines.stream().map(Line::text).toList());
  }

  /**
   * The plan with, under each operator that ran, its figures: rows and bytes out, batches, the
   * time spent in it alone (its inclusive time less its inputs'; summed over its threads) and the
   * peak of its own memory.
   */
  public List<String> render(OperatorProfiles profiles) {
    requireNonNull(profiles, "profiles is null");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Line line = lines.get(i);
      out.add(line.text());
      if (line.nodeId() < 0) {
        continue;
      }
      OperatorStats stats = profiles.find(line.nodeId()).orElse(null);
      if (stats == null) {
        continue;
      }
      long inputs = 0;
      for (int j = i + 1; j < lines.size() && lines.get(j).depth() > line.depth(); j++) {
        Line input = lines.get(j);
        if (input.depth() == line.depth() + 1 && input.nodeId() >= 0) {
          inputs += profiles.find(input.nodeId()).map(OperatorStats::inclusiveNanos).orElse(0L);
        }
      }
      StringBuilder figures = new StringBuilder(" ".repeat(2 * line.depth() + 4))
          .append("Output: ").append(String.format(Locale.ROOT, "%,d", stats.rows())).append(" rows (")
          .append(bytes(stats.bytes())).append("), ")
          .append(String.format(Locale.ROOT, "%,d", stats.batches())).append(stats.batches() == 1 ? " batch" : " batches")
          .append(", Time: ").append(duration(Math.max(0, stats.inclusiveNanos() - inputs)));
      if (stats.peakMemoryBytes() >= 0) {
        figures.append(", Memory: ").append(bytes(stats.peakMemoryBytes()));
      }
      out.add(figures.toString());
    }
    return out;
  }

  /** {@code bytes} as Trino prints data sizes: B, kB, MB, GB, of 1024 each. */
  public static String bytes(long bytes) {
    if (bytes < 1024) {
      return bytes + "B";
    }
    String[] units = {"kB", "MB", "GB", "TB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.2f%s", value, units[unit]);
  }

  /** {@code nanos} as milliseconds, or seconds from one second on. */
  public static String duration(long nanos) {
    if (nanos < 1_000_000_000L) {
      return String.format(Locale.ROOT, "%.2fms", nanos / 1e6);
    }
    return String.format(Locale.ROOT, "%.2fs", nanos / 1e9);
  }
}
