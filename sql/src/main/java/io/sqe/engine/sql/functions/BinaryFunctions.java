package io.sqe.engine.sql.functions;

import com.google.common.hash.Hashing;
import com.google.common.io.BaseEncoding;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.DataContext;
import org.apache.calcite.avatica.util.ByteString;
import org.apache.calcite.linq4j.function.Strict;
import org.apache.calcite.sql.SqlOperator;

/**
 * Trino's functions over VARBINARY: encodings (hex, base64, base32, big-endian and IEEE 754 numbers,
 * UTF-8) and hashes (MD5, SHA-1/256/512, HMACs, xxHash64, Murmur3, CRC-32), from Guava where it has them.
 */
public final class BinaryFunctions {
  /** The functions, for SQE's operator table. */
  public static final List<SqlOperator> ALL = build();

  private BinaryFunctions() {}

  private static List<SqlOperator> build() {
    List<SqlOperator> all = new ArrayList<>();
    for (String name : List.of("md5", "sha1", "sha256", "sha512", "hmac_md5", "hmac_sha1", "hmac_sha256", "hmac_sha512",
        "xxhash64", "murmur3", "crc32", "to_hex", "from_hex", "to_base64", "from_base64", "to_base64url", "from_base64url",
        "to_base32", "from_base32", "to_big_endian_64", "from_big_endian_64", "to_big_endian_32", "from_big_endian_32",
        "to_ieee754_64", "from_ieee754_64", "to_ieee754_32", "from_ieee754_32", "to_utf8", "from_utf8")) {
      all.addAll(JavaFunctions.scalar(name, BinaryFunctions.class, MathFunctions.camel(name)));
    }
    return List.copyOf(all);
  }

  // ---- called from generated code

  @Strict
  public static ByteString md5(ByteString b) {
    return bytes(Hashing.md5().hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString sha1(ByteString b) {
    return bytes(Hashing.sha1().hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString sha256(ByteString b) {
    return bytes(Hashing.sha256().hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString sha512(ByteString b) {
    return bytes(Hashing.sha512().hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString hmacMd5(ByteString b, ByteString key) {
    return bytes(Hashing.hmacMd5(key.getBytes()).hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString hmacSha1(ByteString b, ByteString key) {
    return bytes(Hashing.hmacSha1(key.getBytes()).hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString hmacSha256(ByteString b, ByteString key) {
    return bytes(Hashing.hmacSha256(key.getBytes()).hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static ByteString hmacSha512(ByteString b, ByteString key) {
    return bytes(Hashing.hmacSha512(key.getBytes()).hashBytes(b.getBytes()).asBytes());
  }

  /** xxHash64 with seed 0, big-endian, as Trino writes it. */
  @Strict
  public static ByteString xxhash64(ByteString b) {
    return bytes(ByteBuffer.allocate(8).putLong(XxHash64.hash(b.getBytes(), 0)).array());
  }

  /** MurmurHash3 x64 128 with seed 0. */
  @Strict
  public static ByteString murmur3(ByteString b) {
    return bytes(Hashing.murmur3_128().hashBytes(b.getBytes()).asBytes());
  }

  @Strict
  public static long crc32(ByteString b) {
    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
    crc.update(b.getBytes());
    return crc.getValue();
  }

  @Strict
  public static String toHex(DataContext root, ByteString b) {
    BoundedFunctions.check(root, 2L * b.length(), "to_hex");
    return HexFormat.of().withUpperCase().formatHex(b.getBytes());
  }

  @Strict
  public static ByteString fromHex(String text) {
    if (text.length() % 2 != 0) {
      throw new IllegalArgumentException("invalid input length " + text.length());
    }
    try {
      return bytes(HexFormat.of().parseHex(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid hex input: " + text);
    }
  }

  @Strict
  public static String toBase64(DataContext root, ByteString b) {
    BoundedFunctions.check(root, encodedLength(b, 3, 4), "to_base64");
    return Base64.getEncoder().encodeToString(b.getBytes());
  }

  @Strict
  public static ByteString fromBase64(String text) {
    return decode(Base64.getDecoder(), text);
  }

  @Strict
  public static String toBase64url(DataContext root, ByteString b) {
    BoundedFunctions.check(root, encodedLength(b, 3, 4), "to_base64url");
    return Base64.getUrlEncoder().encodeToString(b.getBytes());
  }

  @Strict
  public static ByteString fromBase64url(String text) {
    return decode(Base64.getUrlDecoder(), text);
  }

  private static ByteString decode(Base64.Decoder decoder, String text) {
    try {
      return bytes(decoder.decode(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid base64 input: " + e.getMessage());
    }
  }

  @Strict
  public static String toBase32(DataContext root, ByteString b) {
    BoundedFunctions.check(root, encodedLength(b, 5, 8), "to_base32");
    return BaseEncoding.base32().encode(b.getBytes());
  }

  /** The length of {@code b} in a padded encoding that writes {@code chars} characters per {@code bytes} bytes. */
  private static long encodedLength(ByteString b, int bytes, int chars) {
    return (b.length() + bytes - 1L) / bytes * chars;
  }

  @Strict
  public static ByteString fromBase32(String text) {
    try {
      return bytes(BaseEncoding.base32().decode(text));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid base32 input: " + e.getMessage());
    }
  }

  @Strict
  public static ByteString toBigEndian64(long x) {
    return bytes(ByteBuffer.allocate(8).putLong(x).array());
  }

  @Strict
  public static long fromBigEndian64(ByteString b) {
    if (b.length() != 8) {
      throw new IllegalArgumentException("expected 8-byte input, but got instead: " + b.length());
    }
    return ByteBuffer.wrap(b.getBytes()).getLong();
  }

  @Strict
  public static ByteString toBigEndian32(int x) {
    return bytes(ByteBuffer.allocate(4).putInt(x).array());
  }

  @Strict
  public static int fromBigEndian32(ByteString b) {
    if (b.length() != 4) {
      throw new IllegalArgumentException("expected 4-byte input, but got instead: " + b.length());
    }
    return ByteBuffer.wrap(b.getBytes()).getInt();
  }

  @Strict
  public static ByteString toIeee75464(Number xValue) {
    double x = xValue.doubleValue();
    return bytes(ByteBuffer.allocate(8).order(ByteOrder.BIG_ENDIAN).putDouble(x).array());
  }

  @Strict
  public static double fromIeee75464(ByteString b) {
    if (b.length() != 8) {
      throw new IllegalArgumentException("Input floating-point value must be exactly 8 bytes long");
    }
    return ByteBuffer.wrap(b.getBytes()).getDouble();
  }

  @Strict
  public static ByteString toIeee75432(Number xValue) {
    double x = xValue.doubleValue();
    return bytes(ByteBuffer.allocate(4).putFloat((float) x).array());
  }

  @Strict
  public static float fromIeee75432(ByteString b) {
    if (b.length() != 4) {
      throw new IllegalArgumentException("Input floating-point value must be exactly 4 bytes long");
    }
    return ByteBuffer.wrap(b.getBytes()).getFloat();
  }

  @Strict
  public static ByteString toUtf8(String s) {
    return bytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** UTF-8 text, with U+FFFD for each invalid sequence (as Trino). */
  @Strict
  public static String fromUtf8(ByteString b) {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .decode(ByteBuffer.wrap(b.getBytes()))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalArgumentException(e.getMessage().toLowerCase(Locale.ROOT));
    }
  }

  private static ByteString bytes(byte[] b) {
    return new ByteString(b);
  }
}
