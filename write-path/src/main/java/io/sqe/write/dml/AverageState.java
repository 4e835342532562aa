package io.sqe.write.dml;

import static java.util.Objects.requireNonNull;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;

/**
 * The sum and count behind each AVG column of a grouped materialized view, per group, which an
 * incremental refresh merges: a file beside the storage table's metadata, named by the summary of
 * the snapshot it goes with ({@value #PROPERTY}). The storage table itself has exactly the view's
 * columns, since Trino refuses to read a materialized view whose storage table has others.
 *
 * <p>A snapshot without the property, or whose file is gone (removed as an orphan by another
 * engine's maintenance), makes the next refresh a full rewrite, which writes the file again.
 *
 * @param groups per group, keyed by {@link #key}: the sum and the count of each AVG column in
 *     order, {@code [sum1, count1, sum2, count2, ...]}; a sum is a Long or a BigDecimal, null over
 *     no value, and a count a Long
 */
record AverageState(Map<String, Object[]> groups) {
  /** Snapshot summary property: the path of the file holding the averages' sums and counts. */
  static final String PROPERTY = "sqe.mview.average-state";
  private static final String MAGIC = "SQE average state 1";

  AverageState {
    groups = Map.copyOf(groups);
  }

  /** The path of the state written with {@code snapshot}; empty when it has none. */
  static Optional<String> path(Snapshot snapshot) {
    return snapshot == null ? Optional.empty() : Optional.ofNullable(snapshot.summary().get(PROPERTY));
  }

  /**
   * A group's key, as one string: each value of the key columns with its class, so that values
   * equal as Iceberg reads them back have equal keys.
   */
  static String key(List<Object> values) {
    StringBuilder key = new StringBuilder();
    for (Object value : values) {
      String text;
      if (value == null) {
        text = "null";
      } else if (value instanceof ByteBuffer bytes) {
        ByteBuffer copy = bytes.duplicate();
        byte[] array = new byte[copy.remaining()];
        copy.get(array);
        text = "bytes " + Base64.getEncoder().encodeToString(array);
      } else {
        text = value.getClass().getSimpleName() + " " + value;
      }
      key.append(text.length()).append(':').append(text);
    }
    return key.toString();
  }

  /** Writes the state to a new file of {@code table}'s metadata directory; returns its path. */
  String write(Table table) {
    String path = table.location() + "/metadata/sqe-average-state-" + UUID.randomUUID() + ".bin";
    try (OutputStream stream = table.io().newOutputFile(path).create();
        DataOutputStream out = new DataOutputStream(new java.io.BufferedOutputStream(stream))) {
      out.writeUTF(MAGIC);
      out.writeInt(groups.size());
      for (Map.Entry<String, Object[]> group : groups.entrySet()) {
        writeBytes(out, group.getKey().getBytes(StandardCharsets.UTF_8));
        out.writeInt(group.getValue().length);
        for (Object value : group.getValue()) {
          writeValue(out, value);
        }
      }
    } catch (IOException e) {
      table.io().deleteFile(path);
      throw new UncheckedIOException(e);
    }
    return path;
  }

  /** The state at {@code path}; empty when the file is gone or not one this class writes. */
  static Optional<AverageState> read(Table table, String path) {
    Map<String, Object[]> groups = new HashMap<>();
    try (InputStream stream = table.io().newInputFile(path).newStream();
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(stream))) {
      if (!in.readUTF().equals(MAGIC)) {
        return Optional.empty();
      }
      int count = in.readInt();
      for (int g = 0; g < count; g++) {
        String key = new String(readBytes(in), StandardCharsets.UTF_8);
        Object[] values = new Object[in.readInt()];
        for (int v = 0; v < values.length; v++) {
          values[v] = readValue(in);
        }
        groups.put(key, values);
      }
    } catch (NotFoundException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Optional.of(new AverageState(groups));
  }

  /** Deletes the state file at {@code path}; a failure leaves an orphan file, no worse. */
  static void delete(Table table, String path) {
    try {
      table.io().deleteFile(requireNonNull(path, "path is null"));
    } catch (RuntimeException e) {
      // An orphan file costs storage only: a later refresh never reads a file its snapshot does not name.
    }
  }

  private static void writeValue(DataOutputStream out, Object value) throws IOException {
    if (value == null) {
      out.writeByte('N');
    } else if (value instanceof Long number) {
      out.writeByte('L');
      out.writeLong(number);
    } else if (value instanceof BigDecimal decimal) {
      out.writeByte('D');
      out.writeInt(decimal.scale());
      writeBytes(out, decimal.unscaledValue().toByteArray());
    } else {
      throw new IllegalArgumentException("Cannot keep a sum or count of class " + value.getClass().getName());
    }
  }

  private static Object readValue(DataInputStream in) throws IOException {
    int tag = in.readByte();
    return switch (tag) {
      case 'N' -> null;
      case 'L' -> in.readLong();
      case 'D' -> {
        int scale = in.readInt();
        yield new BigDecimal(new BigInteger(readBytes(in)), scale);
      }
      default -> throw new IOException("Unknown value tag " + tag + " in an average state file");
    };
  }

  private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static byte[] readBytes(DataInputStream in) throws IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    return bytes;
  }
}
