package io.sqe.engine.iceberg.parquet;

import com.github.luben.zstd.Zstd;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.parquet.bytes.BytesInput;
import org.apache.parquet.compression.CompressionCodecFactory;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.CodecFactory;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The decompressors of one Parquet file read. A ZSTD page (Iceberg's default codec) is decompressed
 * in one call of zstd-jni into an array of its exact size, which the decoder then reads in place;
 * parquet-mr's own decompressor streams it through a {@code ZstdInputStream} into one array and
 * copies that into another. Other codecs are parquet-mr's, from a factory made on first use (its
 * decompressors keep state, so a factory serves one reader).
 */
final class PageDecompressors implements CompressionCodecFactory {
  private static final BytesInputDecompressor ZSTD = new ZstdDecompressor();

  private CodecFactory others;

  @Override
  public BytesInputDecompressor getDecompressor(CompressionCodecName codec) {
    if (codec == CompressionCodecName.ZSTD) {
      return ZSTD;
    }
    if (others == null) {
      others = new CodecFactory(new PlainParquetConfiguration(), 0);
    }
    return others.getDecompressor(codec);
  }

  @Override
  public BytesInputCompressor getCompressor(CompressionCodecName codec) {
    throw new UnsupportedOperationException("A reader's codecs do not compress");
  }

  @Override
  public void release() {
    if (others != null) {
      others.release();
      others = null;
    }
  }

  private static final class ZstdDecompressor implements BytesInputDecompressor {
    @Override
    public BytesInput decompress(BytesInput bytes, int decompressedSize) throws IOException {
      ByteBuffer source = bytes.toByteBuffer();
      byte[] target = new byte[decompressedSize];
      long written;
      if (source.hasArray()) {
        written =
            Zstd.decompressByteArray(
                target, 0, decompressedSize, source.array(), source.arrayOffset() + source.position(), source.remaining());
      } else {
        byte[] copy = new byte[source.remaining()];
        source.duplicate().get(copy);
        written = Zstd.decompressByteArray(target, 0, decompressedSize, copy, 0, copy.length);
      }
      check(written, decompressedSize);
      return BytesInput.from(target);
    }

    @Override
    public void decompress(ByteBuffer input, int compressedSize, ByteBuffer output, int decompressedSize) throws IOException {
      ByteBuffer source = input.duplicate();
      source.limit(source.position() + compressedSize);
      ByteBuffer target = output.duplicate();
      target.limit(target.position() + decompressedSize);
      if (source.isDirect() && target.isDirect()) {
        check(Zstd.decompressDirectByteBuffer(target, target.position(), decompressedSize, source, source.position(), compressedSize), decompressedSize);
      } else {
        byte[] in = new byte[compressedSize];
        source.get(in);
        byte[] out = new byte[decompressedSize];
        check(Zstd.decompressByteArray(out, 0, decompressedSize, in, 0, compressedSize), decompressedSize);
        target.put(out);
      }
      output.position(output.position() + decompressedSize);
    }

    private static void check(long written, int expected) throws IOException {
      if (Zstd.isError(written)) {
        throw new IOException("Corrupt ZSTD page: " + Zstd.getErrorName(written));
      }
      if (written != expected) {
        throw new IOException("A ZSTD page decompressed to " + written + " bytes, not the " + expected + " its header gives");
      }
    }

    @Override
    public void release() {}
  }
}
