package io.sqe.write.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A file's column writers get back the buffers they released, of the size they ask for, ready to write. */
class SlabPoolTest {
  @Test
  void reusesAReleasedBufferOfTheSameSize() {
    SlabPool pool = new SlabPool();
    ByteBuffer slab = pool.allocate(4096);
    slab.putLong(42L).flip();
    pool.release(slab);

    assertThat(pool.allocate(8192)).isNotSameAs(slab);
    ByteBuffer again = pool.allocate(4096);
    assertThat(again).isSameAs(slab);
    assertThat(again.position()).isZero();
    assertThat(again.limit()).isEqualTo(4096);
    assertThat(pool.allocate(4096)).isNotSameAs(slab);
  }

  @Test
  void keepsAtMost16MiB() {
    SlabPool pool = new SlabPool();
    ByteBuffer[] slabs = new ByteBuffer[5];
    for (int i = 0; i < slabs.length; i++) {
      slabs[i] = pool.allocate(4 << 20);
    }
    for (ByteBuffer slab : slabs) {
      pool.release(slab);
    }
    int reused = 0;
    for (int i = 0; i < slabs.length; i++) {
      ByteBuffer slab = pool.allocate(4 << 20);
      for (ByteBuffer old : slabs) {
        reused += slab == old ? 1 : 0;
      }
    }
    assertThat(reused).isEqualTo(4);
  }
}
