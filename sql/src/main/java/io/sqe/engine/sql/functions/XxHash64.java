package io.sqe.engine.sql.functions;

/** xxHash64 (Yann Collet's 64-bit xxHash), as Trino's xxhash64 computes it over bytes. */
final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private XxHash64() {}

  static long hash(byte[] data, long seed) {
    int length = data.length;
    int i = 0;
    long hash;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      for (; i <= length - 32; i += 32) {
        v1 = round(v1, longAt(data, i));
        v2 = round(v2, longAt(data, i + 8));
        v3 = round(v3, longAt(data, i + 16));
        v4 = round(v4, longAt(data, i + 24));
      }
      hash = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
      hash = merge(hash, v1);
      hash = merge(hash, v2);
      hash = merge(hash, v3);
      hash = merge(hash, v4);
    } else {
      hash = seed + P5;
    }
    hash += length;
    for (; i <= length - 8; i += 8) {
      hash ^= round(0, longAt(data, i));
      hash = Long.rotateLeft(hash, 27) * P1 + P4;
    }
    if (i <= length - 4) {
      hash ^= (intAt(data, i) & 0xFFFFFFFFL) * P1;
      hash = Long.rotateLeft(hash, 23) * P2 + P3;
      i += 4;
    }
    for (; i < length; i++) {
      hash ^= (data[i] & 0xFFL) * P5;
      hash = Long.rotateLeft(hash, 11) * P1;
    }
    hash ^= hash >>> 33;
    hash *= P2;
    hash ^= hash >>> 29;
    hash *= P3;
    hash ^= hash >>> 32;
    return hash;
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long merge(long hash, long v) {
    hash ^= round(0, v);
    return hash * P1 + P4;
  }

  private static long longAt(byte[] b, int i) {
    return (b[i] & 0xFFL) | (b[i + 1] & 0xFFL) << 8 | (b[i + 2] & 0xFFL) << 16 | (b[i + 3] & 0xFFL) << 24
        | (b[i + 4] & 0xFFL) << 32 | (b[i + 5] & 0xFFL) << 40 | (b[i + 6] & 0xFFL) << 48 | (b[i + 7] & 0xFFL) << 56;
  }

  private static int intAt(byte[] b, int i) {
    return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
  }
}
