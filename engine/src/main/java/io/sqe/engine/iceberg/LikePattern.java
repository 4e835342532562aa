package io.sqe.engine.iceberg;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A SQL LIKE pattern compiled to match UTF-8 bytes: {@code %} matches any sequence, {@code _}
 * exactly one code point (line terminators included, as in the SQL standard and DuckDB, and as
 * Calcite's simplifier assumes when it rewrites {@code 'ab_%___'} to {@code 'ab____%'}; Calcite's
 * own run-time LIKE, a Java regular expression, does not match them with {@code _}), the escape
 * character makes the next {@code %}, {@code _} or escape character literal.
 *
 * <p>The pattern is split at its {@code %}s into segments; the first must match at the start, the
 * last at the end and the others, leftmost first, in between (a segment consumes a fixed number of
 * code points, so the leftmost match also ends first and leaves the most room for the rest).
 */
final class LikePattern {
  /** Marks a {@code _} in a segment's bytes (a literal byte at the same position is never read). */
  private static final class Segment {
    final byte[] bytes;
    final boolean[] any;

    Segment(byte[] bytes, boolean[] any) {
      this.bytes = bytes;
      this.any = any;
    }

    boolean isEmpty() {
      return bytes.length == 0;
    }
  }

  private final String text;
  /** Null when the pattern has no {@code %}: the single segment must match the whole value. */
  private final Segment whole;
  private final Segment first;
  private final Segment[] middle;
  private final Segment last;

  private LikePattern(String text, Segment whole, Segment first, Segment[] middle, Segment last) {
    this.text = text;
    this.whole = whole;
    this.first = first;
    this.middle = middle;
    this.last = last;
  }

  /**
   * The compiled pattern, or null when it is not a valid LIKE pattern for {@code escape} (null for
   * none), so that whoever evaluates it reports the error.
   */
  static LikePattern compile(String pattern, Character escape) {
    List<Segment> segments = new ArrayList<>();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    List<Boolean> any = new ArrayList<>();
    boolean percent = false;
    for (int i = 0; i < pattern.length(); ) {
      int c = pattern.codePointAt(i);
      int width = Character.charCount(c);
      if (escape != null && c == escape) {
        if (i + width >= pattern.length()) {
          return null;
        }
        int next = pattern.codePointAt(i + width);
        if (next != '%' && next != '_' && next != escape) {
          return null;
        }
        append(bytes, any, next);
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
        append(bytes, any, c);
      }
      i += width;
    }
    segments.add(segment(bytes, any));
    if (!percent) {
      return new LikePattern(pattern, segments.get(0), null, null, null);
    }
    List<Segment> inner = new ArrayList<>();
    for (Segment segment : segments.subList(1, segments.size() - 1)) {
      if (!segment.isEmpty()) {
        inner.add(segment);
      }
    }
    return new LikePattern(pattern, null, segments.get(0), inner.toArray(new Segment[0]), segments.get(segments.size() - 1));
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

  /** The characters every match starts with (empty if it may start with anything). */
  String literalPrefix() {
    Segment segment = whole != null ? whole : first;
    int end = 0;
    while (end < segment.bytes.length && !segment.any[end]) {
      end++;
    }
    return new String(segment.bytes, 0, end, StandardCharsets.UTF_8);
  }

  /** Whether the UTF-8 value in {@code value[0..length)} matches. */
  boolean matches(byte[] value, int length) {
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
      pos = find(value, pos, tail, segment);
      if (pos < 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code value} matches. */
  boolean matches(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    return matches(bytes, bytes.length);
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

  /** The end of the leftmost match of {@code segment} that starts at a code point in {@code [from, to)} and ends by {@code to}, or -1. */
  private static int find(byte[] value, int from, int to, Segment segment) {
    boolean literalStart = !segment.any[0];
    byte head = segment.bytes[0];
    for (int p = from; p < to; p++) {
      if (literalStart ? value[p] != head : (value[p] & 0xC0) == 0x80) {
        continue;
      }
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
