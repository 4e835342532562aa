package io.sqe.write.files;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.parquet.ParquetCodecFactory;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory.BytesInputCompressor;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * A Parquet file's page compressor that threads can share: each thread compresses with a
 * compressor of its own, made as Iceberg's writer makes its one. parquet-mr's compressor keeps its
 * output in a buffer it reuses, and a column's page writer copies a page out of it before the same
 * thread compresses the next, so one compressor per thread is enough.
 */
final class ThreadCompressors implements BytesInputCompressor {
  private final Configuration conf;
  private final int pageSize;
  private final CompressionCodecName codec;
  private final Map<Thread, ParquetCodecFactory> factories = new ConcurrentHashMap<>();
  private final Map<Thread, BytesInputCompressor> compressors = new ConcurrentHashMap<>();

  ThreadCompressors(Configuration conf, int pageSize, CompressionCodecName codec) {
    this.conf = conf;
    this.pageSize = pageSize;
    this.codec = codec;
  }

  @Override
  public BytesInput compress(BytesInput bytes) throws IOException {
    return compressors.computeIfAbsent(Thread.currentThread(), this::compressor).compress(bytes);
  }

  private BytesInputCompressor compressor(Thread thread) {
    ParquetCodecFactory factory = new ParquetCodecFactory(conf, pageSize);
    factories.put(thread, factory);
    return factory.getCompressor(codec);
  }

  @Override
  public CompressionCodecName getCodecName() {
    return codec;
  }

  @Override
  public void release() {
    factories.values().forEach(ParquetCodecFactory::release);
    factories.clear();
    compressors.clear();
  }
}
