package io.sqe.write.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputDecompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/**
 * Pages of columns written on different threads: a page compressed by one thread stays intact
 * while another thread compresses the next page of another column, until its page writer copies it.
 */
class ThreadCompressorsTest {
  private static final int PAGE_SIZE = 1 << 20;

  @Test
  void aThreadsCompressedPageOutlivesAnotherThreadsCompression() throws Exception {
    Configuration conf = new Configuration();
    ThreadCompressors compressors = new ThreadCompressors(conf, PAGE_SIZE, CompressionCodecName.ZSTD);
    ParquetCodecFactory codecs = new ParquetCodecFactory(conf, PAGE_SIZE);
    try {
      byte[] first = page('a');
      byte[] second = page('z');
      BytesInput compressed = compressors.compress(BytesInput.from(first));
      byte[] other = CompletableFuture.supplyAsync(() -> compress(compressors, second)).get();

      BytesInputDecompressor decompressor = codecs.getDecompressor(CompressionCodecName.ZSTD);
      assertThat(decompressor.decompress(BytesInput.from(compressed.toByteArray()), first.length).toByteArray()).isEqualTo(first);
      assertThat(decompressor.decompress(BytesInput.from(other), second.length).toByteArray()).isEqualTo(second);
    } finally {
      compressors.release();
      codecs.release();
    }
  }

  private static byte[] compress(ThreadCompressors compressors, byte[] page) {
    try {
      return compressors.compress(BytesInput.from(page)).toByteArray();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A page of text that compresses to other bytes for each letter. */
  private static byte[] page(char letter) {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < 10_000; i++) {
      s.append(letter).append(i % 97).append(' ');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }
}
