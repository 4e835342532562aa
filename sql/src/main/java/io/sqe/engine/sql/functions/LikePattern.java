package io.sqe.engine.sql.functions;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.engine.exec.Checkpoint;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQL LIKE pattern, compiled once and matched against UTF-8 text without backtracking. {@code %}
 * matches any sequence, {@code _} exactly one code point (line terminators included, as in the SQL
 * standard, PostgreSQL and DuckDB), and the escape character, if any, makes the next {@code %},
 * {@code _} or escape character literal. Compiled to ignore case (ILIKE), pattern and text are
 * compared code point by code point after simple case folding (Unicode's, not only ASCII's).
 *
 * <p>The pattern is split at its {@code %}s into segments, each of a fixed number of code points:
 * the first must match at the start of the text, the last at its end, and the others in order in
 * between, each at its leftmost place after the one before. A fixed-width segment's leftmost match
 * is also the one that ends first, which leaves the most room for the rest, so no choice is ever
 * taken back. Segments are searched one after the other over disjoint stretches of the text: a
 * segment of plain text with Knuth-Morris-Pratt, which reads each byte of its stretch at most twice,
 * and a segment with {@code _} by trying it at each code point of its stretch. Over n bytes of text
 * and m bytes of pattern, a match therefore takes O(n + m) steps when no segment has a {@code _},
 * and at most O(n * k + m) for the longest segment of k bytes with one. (Calcite's LIKE, a Java
 * regular expression, backtracks: {@code '%a%a%a%a%a%a%a%a%a%a%a%a%b'} over a long run of {@code
 * a}s took it minutes.) Every {@link #CHECK_INTERVAL} steps of a search it calls its {@link
 * Checkpoint}, so a statement timeout stops even a match within one long value.
 *
 * <p>This is SQE's only LIKE: table scans run it on the bytes of Parquet pages, and row-level code
 * and the constant folding of the planner on strings ({@link LikeFunctions}).
 */
public final class LikePattern {
  /** Steps (byte comparisons) of a search between two calls of its checkpoint. */
  public static final int CHECK_INTERVAL = 1 << 12;

  /** A run of the pattern between two {@code %}s. */
  private static final class Segment {
    /** The segment's UTF-8 bytes; a {@code _} stands as one placeholder byte. */
    final byte[] bytes;
    /** Where a {@code _} stands in {@link #bytes}. */
    final boolean[] any;
    /** For a segment without {@code _}: the Knuth-Morris-Pratt table (else null). */
    final int[] failure;

    Segment(byte[] bytes, boolean[] any) {
      this.bytes = bytes;
      this.any = any;
      boolean literal = true;
      for (boolean a : any) {
        literal &= !a;
      }
      this.failure = literal ? failure(bytes) : null;
    }

    boolean isEmpty() {
      return bytes.length == 0;
    }

    /** For each prefix of {@code bytes}, the length of its longest proper prefix that is also its suffix. */
    private static int[] failure(byte[] bytes) {
      int[] failure = new int[bytes.length];
      int k = 0;
      for (int i = 1; i < bytes.length; i++) {
        while (k > 0 && bytes[i] != bytes[k]) {
          k = failure[k - 1];
        }
        if (bytes[i] == bytes[k]) {
          k++;
        }
        failure[i] = k;
      }
      return failure;
    }
  }

  private final String text;
  private final boolean ignoreCase;
  /** Null when the pattern has a {@code %}; else the single segment, which must match the whole text. */
  private final Segment whole;
  private final Segment first;
  private final Segment[] middle;
  private final Segment last;

  private LikePattern(String text, boolean ignoreCase, Segment whole, Segment first, Segment[] middle, Segment last) {
    this.text = text;
    this.ignoreCase = ignoreCase;
    this.whole = whole;
    this.first = first;
    this.middle = middle;
    this.last = last;
  }

  /**
   * Compiles {@code pattern}, with {@code escape} (null for none) as its escape character.
   *
   * @throws SqeException INVALID_ARGUMENT when the escape is not one character, or the pattern
   *     ends with it or has it before anything but {@code %}, {@code _} or itself
   */
  public static LikePattern compile(String pattern, String escape, boolean ignoreCase) {
    int escapeChar = -1;
    if (escape != null) {
      if (escape.isEmpty() || escape.codePointCount(0, escape.length()) != 1) {
        throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The escape of LIKE must be one character, not '" + escape + "'");
      }
      escapeChar = escape.codePointAt(0);
    }
    List<Segment> segments = new ArrayList<>();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<Boolean> any = new ArrayList<>();
    boolean percent = false;
    for (int i = 0; i < pattern.length(); ) {
      int c = pattern.codePointAt(i);
      int width = Character.charCount(c);
      if (c == escapeChar) {
        int next = i + width < pattern.length() ? pattern.codePointAt(i + width) : -1;
        if (next != '%' && next != '_' && next != escapeChar) {
          throw new SqeException(
              ErrorCode.INVALID_ARGUMENT,
              "Invalid LIKE pattern '" + pattern + "': its escape character at position " + (i + 1)
                  + " must come before %, _ or itself");
        }
        append(bytes, any, ignoreCase ? fold(next) : next);
        i += width + Character.charCount(next);
        continue;
      }
      if (c == '%') {
        segments.add(segment(bytes, any));
        percent = true;
      } else if (c == '_') {
        bytes.write(0);
        any.add(true);
      } else {
        append(bytes, any, ignoreCase ? fold(c) : c);
      }
      i += width;
    }
    segments.add(segment(bytes, any));
    if (!percent) {
      return new LikePattern(pattern, ignoreCase, segments.get(0), null, null, null);
    }
    List<Segment> inner = new ArrayList<>();
    for (Segment segment : segments.subList(1, segments.size() - 1)) {
      if (!segment.isEmpty()) {
        inner.add(segment);
      }
    }
    return new LikePattern(
        pattern, ignoreCase, null, segments.get(0), inner.toArray(new Segment[0]), segments.get(segments.size() - 1));
  }

  private static void append(ByteArrayOutputStream bytes, List<Boolean> any, int codePoint) {
    byte[] encoded = new String(Character.toChars(codePoint)).getBytes(StandardCharsets.UTF_8);
    bytes.write(encoded, 0, encoded.length);
    for (int k = 0; k < encoded.length; k++) {
      any.add(false);
    }
  }

  private static Segment segment(ByteArrayOutputStream bytes, List<Boolean> any) {
    boolean[] flags = new boolean[any.size()];
    for (int i = 0; i < flags.length; i++) {
      flags[i] = any.get(i);
    }
    Segment segment = new Segment(bytes.toByteArray(), flags);
    bytes.reset();
    any.clear();
    return segment;
  }

  /** Simple case folding of one code point, as {@link String#equalsIgnoreCase} compares them. */
  private static int fold(int codePoint) {
    return Character.toLowerCase(Character.toUpperCase(codePoint));
  }

  private static String fold(String value) {
    StringBuilder folded = new StringBuilder(value.length());
    for (int i = 0; i < value.length(); ) {
      int c = value.codePointAt(i);
      folded.appendCodePoint(fold(c));
      i += Character.charCount(c);
    }
    return folded.toString();
  }

  /** The characters every match starts with (empty if it may start with anything). */
  public String literalPrefix() {
    Segment segment = whole != null ? whole : first;
    int end = 0;
    while (end < segment.bytes.length && !segment.any[end]) {
      end++;
    }
    return new String(segment.bytes, 0, end, StandardCharsets.UTF_8);
  }

  /** Whether the pattern ignores case (ILIKE). */
  public boolean ignoresCase() {
    return ignoreCase;
  }

  /** Whether {@code value} matches. */
  public boolean matches(String value, Checkpoint checkpoint) {
    byte[] bytes = (ignoreCase ? fold(value) : value).getBytes(StandardCharsets.UTF_8);
    return matchesFolded(bytes, bytes.length, checkpoint);
  }

  /** Whether the UTF-8 text in {@code value[0..length)} matches. */
  public boolean matches(byte[] value, int length, Checkpoint checkpoint) {
    if (ignoreCase) {
      return matches(new String(value, 0, length, StandardCharsets.UTF_8), checkpoint);
    }
    return matchesFolded(value, length, checkpoint);
  }

  private boolean matchesFolded(byte[] value, int length, Checkpoint checkpoint) {
    if (whole != null) {
      return matchForward(value, 0, length, whole) == length;
    }
    int pos = matchForward(value, 0, length, first);
    if (pos < 0) {
      return false;
    }
    int tail = matchBackward(value, pos, length, last);
    if (tail < 0) {
      return false;
    }
    for (Segment segment : middle) {
      pos = segment.failure != null ? findText(value, pos, tail, segment, checkpoint) : find(value, pos, tail, segment, checkpoint);
      if (pos < 0) {
        return false;
      }
    }
    return true;
  }

  /** The end of the match of {@code segment} at {@code pos} within {@code [pos, end)}, or -1. */
  private static int matchForward(byte[] value, int pos, int end, Segment segment) {
    byte[] bytes = segment.bytes;
    boolean[] any = segment.any;
    int p = pos;
    for (int i = 0; i < bytes.length; i++) {
      if (p >= end) {
        return -1;
      }
      if (any[i]) {
        int width = codePointWidth(value[p]);
        if (p + width > end) {
          return -1;
        }
        p += width;
      } else if (value[p] != bytes[i]) {
        return -1;
      } else {
        p++;
      }
    }
    return p;
  }

  /** The start of the match of {@code segment} ending at {@code end} within {@code [start, end)}, or -1. */
  private static int matchBackward(byte[] value, int start, int end, Segment segment) {
    byte[] bytes = segment.bytes;
    boolean[] any = segment.any;
    int q = end;
    for (int i = bytes.length - 1; i >= 0; i--) {
      if (q <= start) {
        return -1;
      }
      if (any[i]) {
        q--;
        while (q > start && (value[q] & 0xC0) == 0x80) {
          q--;
        }
        if ((value[q] & 0xC0) == 0x80) {
          return -1;
        }
      } else {
        q--;
        if (value[q] != bytes[i]) {
          return -1;
        }
      }
    }
    return q;
  }

  /**
   * The end of the leftmost match of a segment without {@code _} in {@code [from, to)}, or -1, by
   * Knuth-Morris-Pratt: the pattern's UTF-8 starts with a lead byte, so every byte match starts at
   * a code point.
   */
  private static int findText(byte[] value, int from, int to, Segment segment, Checkpoint checkpoint) {
    byte[] bytes = segment.bytes;
    int[] failure = segment.failure;
    int countdown = CHECK_INTERVAL;
    int k = 0;
    for (int p = from; p < to; p++) {
      byte b = value[p];
      while (k > 0 && bytes[k] != b) {
        k = failure[k - 1];
        if (--countdown == 0) {
          countdown = CHECK_INTERVAL;
          checkpoint.check();
        }
      }
      if (bytes[k] == b && ++k == bytes.length) {
        return p + 1;
      }
      if (--countdown == 0) {
        countdown = CHECK_INTERVAL;
        checkpoint.check();
      }
    }
    return -1;
  }

  /** The end of the leftmost match of a segment with {@code _} that starts at a code point in {@code [from, to)}, or -1. */
  private static int find(byte[] value, int from, int to, Segment segment, Checkpoint checkpoint) {
    boolean literalStart = !segment.any[0];
    byte head = segment.bytes[0];
    int countdown = CHECK_INTERVAL;
    for (int p = from; p < to; p++) {
      if (--countdown <= 0) {
        countdown = CHECK_INTERVAL;
        checkpoint.check();
      }
      if (literalStart ? value[p] != head : (value[p] & 0xC0) == 0x80) {
        continue;
      }
      countdown -= segment.bytes.length;
      int end = matchForward(value, p, to, segment);
      if (end >= 0) {
        return end;
      }
    }
    return -1;
  }

  /** The byte length of the UTF-8 code point that starts with {@code lead}. */
  private static int codePointWidth(byte lead) {
    int b = lead & 0xFF;
    if (b < 0x80) {
      return 1;
    }
    if (b >= 0xF0) {
      return 4;
    }
    if (b >= 0xE0) {
      return 3;
    }
    return b >= 0xC0 ? 2 : 1;
  }

  @Override
  public String toString() {
    return text;
  }
}
