package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ClientIdsTest {
  @Test
  void anIdBelongsToThePrincipalItWasDrawnFor() {
    for (int i = 0; i < 1_000; i++) {
      long id = ClientIds.random("writer-1");
      assertThat(id).isNotNegative();
      assertThat(ClientIds.belongsTo(id, "writer-1")).isTrue();
      assertThat(ClientIds.belongsTo(id, "writer-2")).isFalse();
    }
    assertThat(ClientIds.of("writer-1", -1L)).isNotNegative();
    assertThat(ClientIds.of("writer-1", 7) & ((1L << ClientIds.RANDOM_BITS) - 1)).isEqualTo(7);
    assertThat(ClientIds.tag("writer-1")).isBetween(0L, (1L << ClientIds.TAG_BITS) - 1);
    assertThat(ClientIds.belongsTo(-1, "writer-1")).isFalse();
  }
}
