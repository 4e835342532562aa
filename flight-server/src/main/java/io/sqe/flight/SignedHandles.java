package io.sqe.flight;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import io.sqe.engine.ErrorCode;
import io.sqe.engine.SqeException;
import io.sqe.flight.auth.HandleKeys;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes and reads {@link StatementHandle}s: a compact binary form, versioned and authenticated
 * with HMAC-SHA256 under a key every server sharing the token signing keys derives
 * ({@link HandleKeys}), so any of them can redeem a handle another issued and none accepts one
 * altered or signed elsewhere.
 *
 * <p>Layout: magic byte, format version, key id, payload, MAC over all that precedes it. The
 * payload is not encrypted: a handle goes only to the authenticated user who sent its statement
 * and parameters, over the same (TLS) connection, so it tells its holder nothing new, and the
 * server never logs it.
 *
 * <p>A handle is at most {@link #MAX_BYTES}: one whose statement and parameters would not fit, or
 * whose parameters are of a type the format does not carry, is issued {@linkplain
 * StatementHandle.Scope#SERVER_ONLY server-only} instead.
 */
final class SignedHandles {
  /** The largest handle issued or read: clients keep and resend it, and carry it in FlightInfos. */
  static final int MAX_BYTES = 1 << 20;
  private static final byte MAGIC = (byte) 0xD5;
  private static final byte VERSION = 1;
  private static final int MAC_BYTES = 32;
  private static final int HEADER_BYTES = 2 + HandleKeys.ID_BYTES;

  private final HandleKeys keys;

  SignedHandles(HandleKeys keys) {
    this.keys = requireNonNull(keys, "keys is null");
  }

  /** The signed bytes of {@code handle}; server-only if it would not fit or cannot carry its parameters. */
  byte[] encode(StatementHandle handle) {
    byte[] signed = null;
    try {
      signed = sign(payload(handle));
    } catch (UnsupportedValue e) {
      // Falls through to the server-only form.
    }
    if (signed == null || signed.length > MAX_BYTES) {
      StatementHandle local = StatementHandle.local(
          handle.kind(), handle.issuedAt(), handle.issuer(), handle.localId(), handle.user(), StatementHandle.Scope.SERVER_ONLY);
      signed = sign(payload(local));
    }
    return signed;
  }

  /**
   * The handle {@code bytes} hold; empty when they are not in this format at all (an id issued
   * before handles were signed, or garbage), which the caller answers as an unknown handle.
   *
   * @throws SqeException INVALID_ARGUMENT when it is too large, of an unknown format version,
   *     signed with a key this server does not have, or altered
   */
  Optional<StatementHandle> decode(byte[] bytes, String what) {
    if (bytes.length < HEADER_BYTES + MAC_BYTES || bytes[0] != MAGIC) {
      return Optional.empty();
    }
    if (bytes.length > MAX_BYTES) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT, "The " + what + " is " + bytes.length + " bytes, over the " + MAX_BYTES + " an SQE server reads");
    }
    if (bytes[1] != VERSION) {
      throw new SqeException(
          ErrorCode.INVALID_ARGUMENT,
          "The " + what + " is in format version " + bytes[1] + ", which this SQE server does not read (it reads " + VERSION
              + "): it was issued by a newer or older server; run the statement again");
    }
    byte[] keyId = Arrays.copyOfRange(bytes, 2, HEADER_BYTES);
    byte[] signedPart = Arrays.copyOf(bytes, bytes.length - MAC_BYTES);
    byte[] mac = keys.mac(keyId, signedPart).orElseThrow(() -> new SqeException(
        ErrorCode.INVALID_ARGUMENT,
        "The " + what + " is signed with a key this SQE server does not have: servers behind one address need the same "
            + "security/signing-keys.jwks (docs/deploy.md); run the statement again"));
    if (!MessageDigest.isEqual(mac, Arrays.copyOfRange(bytes, bytes.length - MAC_BYTES, bytes.length))) {
      throw new SqeException(ErrorCode.INVALID_ARGUMENT, "The " + what + "'s signature does not verify: it was altered");
    }
    try {
      return Optional.of(read(new DataInputStream(new java.io.ByteArrayInputStream(signedPart, HEADER_BYTES, signedPart.length - HEADER_BYTES))));
    } catch (IOException | RuntimeException e) {
      // Signed by a server sharing our keys, yet unreadable: a bug, not the client's doing.
      throw new SqeException(ErrorCode.INTERNAL, "The " + what + " is signed but cannot be read: " + e.getMessage(), e);
    }
  }

  /** The handle {@code bytes} hold, not verified; empty when they hold none that can be read. */
  static Optional<StatementHandle> peek(byte[] bytes) {
    if (bytes.length < HEADER_BYTES + MAC_BYTES || bytes.length > MAX_BYTES || bytes[0] != MAGIC || bytes[1] != VERSION) {
      return Optional.empty();
    }
    try {
      return Optional.of(read(new DataInputStream(new java.io.ByteArrayInputStream(bytes, HEADER_BYTES, bytes.length - HEADER_BYTES - MAC_BYTES))));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private byte[] sign(byte[] payload) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(HEADER_BYTES + payload.length + MAC_BYTES);
    out.write(MAGIC);
    out.write(VERSION);
    out.writeBytes(keys.signingId());
    out.writeBytes(payload);
    out.writeBytes(keys.sign(out.toByteArray()));
    return out.toByteArray();
  }

  private static byte[] payload(StatementHandle handle) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(handle.kind().ordinal());
      out.writeLong(handle.issuedAt().getEpochSecond());
      string(out, handle.issuer());
      string(out, handle.localId());
      string(out, handle.user());
      out.writeByte(handle.scope().ordinal());
      if (!handle.selfContained()) {
        return bytes.toByteArray();
      }
      StatementHandle.Context context = handle.context();
      string(out, context.catalog());
      nullableString(out, context.schema());
      string(out, context.timeZone());
      out.writeLong(context.statementTimeout() == null ? -1 : context.statementTimeout().toMillis());
      map(out, context.options());
      map(out, context.preparedStatements());
      string(out, handle.sql());
      out.writeInt(handle.parameterSets().size());
      for (List<Object> row : handle.parameterSets()) {
        out.writeInt(row.size());
        for (Object value : row) {
          value(out, value);
        }
        if (bytes.size() > MAX_BYTES) {
          throw new UnsupportedValue();
        }
      }
      out.writeInt(handle.snapshots().size());
      for (StatementHandle.TableSnapshot table : handle.snapshots()) {
        string(out, table.catalog());
        out.writeInt(table.namespace().size());
        for (String level : table.namespace()) {
          string(out, level);
        }
        string(out, table.table());
        out.writeLong(table.snapshotId());
      }
      out.writeBoolean(handle.commandCount() != null);
      if (handle.commandCount() != null) {
        out.writeLong(handle.commandCount());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static StatementHandle read(DataInputStream in) throws IOException {
    StatementHandle.Kind kind = StatementHandle.Kind.values()[in.readUnsignedByte()];
    Instant issuedAt = Instant.ofEpochSecond(in.readLong());
    String issuer = string(in);
    String localId = string(in);
    String user = string(in);
    StatementHandle.Scope scope = StatementHandle.Scope.values()[in.readUnsignedByte()];
    if (scope != StatementHandle.Scope.SELF_CONTAINED) {
      return StatementHandle.local(kind, issuedAt, issuer, localId, user, scope);
    }
    String catalog = string(in);
    String schema = nullableString(in);
    String timeZone = string(in);
    long timeoutMillis = in.readLong();
    Map<String, String> options = map(in);
    Map<String, String> prepared = map(in);
    StatementHandle.Context context = new StatementHandle.Context(
        catalog, schema, timeZone, timeoutMillis < 0 ? null : Duration.ofMillis(timeoutMillis), options, prepared);
    String sql = string(in);
    int rows = in.readInt();
    List<List<Object>> parameterSets = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      int width = in.readInt();
      List<Object> row = new ArrayList<>(width);
      for (int c = 0; c < width; c++) {
        row.add(value(in));
      }
      parameterSets.add(row);
    }
    int tables = in.readInt();
    List<StatementHandle.TableSnapshot> snapshots = new ArrayList<>();
    for (int t = 0; t < tables; t++) {
      String tableCatalog = string(in);
      int levels = in.readInt();
      List<String> namespace = new ArrayList<>();
      for (int l = 0; l < levels; l++) {
        namespace.add(string(in));
      }
      snapshots.add(new StatementHandle.TableSnapshot(tableCatalog, namespace, string(in), in.readLong()));
    }
    Long count = in.readBoolean() ? in.readLong() : null;
    if (in.read() != -1) {
      throw new IOException("trailing bytes");
    }
    return new StatementHandle(kind, issuedAt, issuer, localId, user, scope, context, sql, parameterSets, snapshots, count);
  }

  // ---- values: a tag byte, then the value

  private static final int NULL = 0;
  private static final int BOOLEAN = 1;
  private static final int BYTE = 2;
  private static final int SHORT = 3;
  private static final int INT = 4;
  private static final int LONG = 5;
  private static final int FLOAT = 6;
  private static final int DOUBLE = 7;
  private static final int DECIMAL = 8;
  private static final int STRING = 9;
  private static final int BINARY = 10;
  private static final int DATE = 11;
  private static final int TIME = 12;
  private static final int TIMESTAMP = 13;
  private static final int INSTANT = 14;

  /** A parameter value of a type the format does not carry: the handle is issued server-only. */
  private static final class UnsupportedValue extends RuntimeException {
    UnsupportedValue() {
      super(null, null, false, false);
    }
  }

  private static void value(DataOutputStream out, Object value) throws IOException {
    if (value == null) {
      out.writeByte(NULL);
    } else if (value instanceof Boolean b) {
      out.writeByte(BOOLEAN);
      out.writeBoolean(b);
    } else if (value instanceof Byte b) {
      out.writeByte(BYTE);
      out.writeByte(b);
    } else if (value instanceof Short s) {
      out.writeByte(SHORT);
      out.writeShort(s);
    } else if (value instanceof Integer i) {
      out.writeByte(INT);
      out.writeInt(i);
    } else if (value instanceof Long l) {
      out.writeByte(LONG);
      out.writeLong(l);
    } else if (value instanceof Float f) {
      out.writeByte(FLOAT);
      out.writeFloat(f);
    } else if (value instanceof Double d) {
      out.writeByte(DOUBLE);
      out.writeDouble(d);
    } else if (value instanceof BigDecimal d) {
      out.writeByte(DECIMAL);
      out.writeInt(d.scale());
      bytes(out, d.unscaledValue().toByteArray());
    } else if (value instanceof String s) {
      out.writeByte(STRING);
      string(out, s);
    } else if (value instanceof byte[] b) {
      out.writeByte(BINARY);
      bytes(out, b);
    } else if (value instanceof LocalDate d) {
      out.writeByte(DATE);
      out.writeLong(d.toEpochDay());
    } else if (value instanceof LocalTime t) {
      out.writeByte(TIME);
      out.writeLong(t.toNanoOfDay());
    } else if (value instanceof LocalDateTime t) {
      out.writeByte(TIMESTAMP);
      out.writeLong(t.toLocalDate().toEpochDay());
      out.writeLong(t.toLocalTime().toNanoOfDay());
    } else if (value instanceof Instant i) {
      out.writeByte(INSTANT);
      out.writeLong(i.getEpochSecond());
      out.writeInt(i.getNano());
    } else {
      throw new UnsupportedValue();
    }
  }

  private static Object value(DataInputStream in) throws IOException {
    int tag = in.readUnsignedByte();
    switch (tag) {
      case NULL:
        return null;
      case BOOLEAN:
        return in.readBoolean();
      case BYTE:
        return in.readByte();
      case SHORT:
        return in.readShort();
      case INT:
        return in.readInt();
      case LONG:
        return in.readLong();
      case FLOAT:
        return in.readFloat();
      case DOUBLE:
        return in.readDouble();
      case DECIMAL: {
        int scale = in.readInt();
        return new BigDecimal(new BigInteger(bytes(in)), scale);
      }
      case STRING:
        return string(in);
      case BINARY:
        return bytes(in);
      case DATE:
        return LocalDate.ofEpochDay(in.readLong());
      case TIME:
        return LocalTime.ofNanoOfDay(in.readLong());
      case TIMESTAMP:
        return LocalDateTime.of(LocalDate.ofEpochDay(in.readLong()), LocalTime.ofNanoOfDay(in.readLong()));
      case INSTANT:
        return Instant.ofEpochSecond(in.readLong(), in.readInt());
      default:
        throw new IOException("unknown value tag " + tag);
    }
  }

  private static void string(DataOutputStream out, String value) throws IOException {
    bytes(out, value.getBytes(UTF_8));
  }

  private static void nullableString(DataOutputStream out, String value) throws IOException {
    out.writeBoolean(value != null);
    if (value != null) {
      string(out, value);
    }
  }

  private static void bytes(DataOutputStream out, byte[] value) throws IOException {
    out.writeInt(value.length);
    out.write(value);
  }

  private static void map(DataOutputStream out, Map<String, String> map) throws IOException {
    out.writeInt(map.size());
    for (Map.Entry<String, String> entry : new java.util.TreeMap<>(map).entrySet()) {
      string(out, entry.getKey());
      string(out, entry.getValue());
    }
  }

  private static String string(DataInputStream in) throws IOException {
    return new String(bytes(in), UTF_8);
  }

  private static String nullableString(DataInputStream in) throws IOException {
    return in.readBoolean() ? string(in) : null;
  }

  private static byte[] bytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new EOFException("a length of " + length + " past the end");
    }
    return in.readNBytes(length);
  }

  private static Map<String, String> map(DataInputStream in) throws IOException {
    int size = in.readInt();
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      map.put(string(in), string(in));
    }
    return map;
  }
}
