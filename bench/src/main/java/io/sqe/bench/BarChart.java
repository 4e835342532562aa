package io.sqe.bench;

import static java.util.Objects.requireNonNull;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import javax.imageio.ImageIO;

/**
 * A horizontal bar chart on a log scale, drawn with Java2D and written as PNG: one row per label,
 * one bar per series in it, the value printed at the bar's end with an optional note, and an optional
 * vertical reference line (a geometric mean) with its caption.
 */
final class BarChart {
  /** One bar series, with its colour. */
  record Series(String name, Color color) {}

  /** One row: a value per series (NaN for none) and a note printed after the last bar. */
  record Row(String label, double[] values, String note) {}

  private static final Color[] PALETTE = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0x9467bd)};
  private static final int BAR = 14;
  private static final int GAP = 10;

  private final String title;
  private final String axisLabel;
  private final List<Series> series = new ArrayList<>();
  private final List<Row> rows = new ArrayList<>();
  private final List<String> footer = new ArrayList<>();
  private OptionalDouble reference = OptionalDouble.empty();
  private String referenceLabel = "";

  BarChart(String title, String axisLabel, String... seriesNames) {
    this.title = requireNonNull(title, "title is null");
    this.axisLabel = requireNonNull(axisLabel, "axisLabel is null");
    for (int i = 0; i < seriesNames.length; i++) {
      series.add(new Series(seriesNames[i], PALETTE[i % PALETTE.length]));
    }
  }

  BarChart row(String label, String note, double... values) {
    if (values.length != series.size()) {
      throw new IllegalArgumentException("Row " + label + " has " + values.length + " values for " + series.size() + " series");
    }
    rows.add(new Row(label, values.clone(), note == null ? "" : note));
    return this;
  }

  BarChart reference(double value, String label) {
    if (value > 0 && Double.isFinite(value)) {
      reference = OptionalDouble.of(value);
      referenceLabel = label;
    }
    return this;
  }

  BarChart footer(String line) {
    footer.add(line);
    return this;
  }

  /** Draws the chart and writes it to {@code file} as PNG. */
  void writePng(Path file) throws IOException {
    System.setProperty("java.awt.headless", "true");
    double min = Double.MAX_VALUE;
    double max = 0;
    for (Row row : rows) {
      for (double v : row.values()) {
        if (v > 0 && Double.isFinite(v)) {
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
      }
    }
    if (reference.isPresent()) {
      min = Math.min(min, reference.getAsDouble());
      max = Math.max(max, reference.getAsDouble());
    }
    if (max == 0) {
      min = 1;
      max = 10;
    }
    double lo = Math.pow(10, Math.floor(Math.log10(min)));
    double hi = Math.pow(10, Math.ceil(Math.log10(max)));
    if (hi <= lo) {
      hi = lo * 10;
    }

    int labelWidth = 240;
    int noteWidth = 230;
    int plotWidth = 560;
    int left = labelWidth + 10;
    int top = 60 + 18 * ((series.size() + 1) / 2);
    int rowHeight = series.size() * BAR + GAP;
    int plotHeight = Math.max(rowHeight, rows.size() * rowHeight);
    int width = left + plotWidth + noteWidth;
    int height = top + plotHeight + 50 + 16 * footer.size();

    BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, width, height);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
      g.drawString(title, 10, 22);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
      for (int i = 0; i < series.size(); i++) {
        int x = 10 + (i % 2) * 300;
        int y = 36 + (i / 2) * 18;
        g.setColor(series.get(i).color());
        g.fillRect(x, y, 12, 12);
        g.setColor(Color.BLACK);
        g.drawString(series.get(i).name(), x + 18, y + 11);
      }

      // Decade grid lines and their labels.
      double logLo = Math.log10(lo);
      double span = Math.log10(hi) - logLo;
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
      for (double d = lo; d <= hi * 1.0001; d *= 10) {
        int x = left + (int) Math.round((Math.log10(d) - logLo) / span * plotWidth);
        g.setColor(new Color(0xdddddd));
        g.drawLine(x, top - 4, x, top + plotHeight);
        g.setColor(Color.DARK_GRAY);
        String tick = tick(d);
        g.drawString(tick, x - g.getFontMetrics().stringWidth(tick) / 2, top + plotHeight + 16);
      }
      g.drawString(axisLabel + " (log scale)", left + plotWidth / 2 - 60, top + plotHeight + 34);

      FontMetrics metrics = g.getFontMetrics();
      for (int r = 0; r < rows.size(); r++) {
        Row row = rows.get(r);
        int y = top + r * rowHeight;
        g.setColor(Color.BLACK);
        g.drawString(fit(row.label(), metrics, labelWidth), 10, y + (series.size() * BAR) / 2 + 5);
        int end = left;
        boolean any = Arrays.stream(row.values()).anyMatch(v -> v > 0 && Double.isFinite(v));
        for (int s = 0; s < series.size(); s++) {
          double v = row.values()[s];
          int by = y + s * BAR;
          if (!(v > 0) || !Double.isFinite(v)) {
            // A row with no value at all says so; a row that has another series' value leaves a gap.
            if (!any && s == 0) {
              g.setColor(Color.GRAY);
              g.drawString("n/a", left + 2, by + BAR - 3);
            }
            continue;
          }
          int w = Math.max(1, (int) Math.round((Math.log10(v) - logLo) / span * plotWidth));
          g.setColor(series.get(s).color());
          g.fillRect(left, by + 1, w, BAR - 2);
          g.setColor(Color.BLACK);
          String value = value(v);
          g.drawString(value, left + w + 4, by + BAR - 3);
          end = Math.max(end, left + w + 8 + metrics.stringWidth(value));
        }
        if (!row.note().isEmpty()) {
          g.setColor(Color.DARK_GRAY);
          g.drawString(row.note(), Math.max(end, left + plotWidth) + 4, y + (series.size() * BAR) / 2 + 5);
        }
      }
      if (reference.isPresent()) {
        int x = left + (int) Math.round((Math.log10(reference.getAsDouble()) - logLo) / span * plotWidth);
        g.setColor(new Color(0xd62728));
        g.setStroke(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        g.drawLine(x, top - 6, x, top + plotHeight);
        g.drawString(referenceLabel, Math.min(x + 4, width - metrics.stringWidth(referenceLabel) - 4), top - 8);
      }
      g.setColor(Color.DARK_GRAY);
      for (int i = 0; i < footer.size(); i++) {
        g.drawString(footer.get(i), 10, top + plotHeight + 52 + 16 * i);
      }
    } finally {
      g.dispose();
    }
    Path parent = file.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("No PNG writer in this JDK");
    }
  }

  /** The chart's file for a report file: the same name with {@code .png}. */
  static Path nextTo(Path report) {
    String name = report.getFileName().toString();
    int dot = name.lastIndexOf('.');
    return report.resolveSibling((dot > 0 ? name.substring(0, dot) : name) + ".png");
  }

  private static String fit(String text, FontMetrics metrics, int width) {
    String s = text;
    while (s.length() > 3 && metrics.stringWidth(s) > width) {
      s = s.substring(0, s.length() - 2);
    }
    return s.equals(text) ? s : s + "…";
  }

  private static String tick(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%s", (float) v);
  }

  private static String value(double v) {
    if (v >= 100) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (v >= 1) {
      return String.format(Locale.ROOT, "%.2f", v);
    }
    return String.format(Locale.ROOT, "%.3f", v);
  }
}
