package io.zoolander.wire.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WriteChecksTest {
  static final Znodes ZNODES = Znodes.defaults();

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/zoolander",
        "/zoolander/state",
        "/zoolander/clients/7",
        "/zoolander/data/x",
        "/zoolander/endpoint"
      })
  void pathsAtOrUnderTheBasePathAreReserved(String path) {
    List<Op> ops = List.of(Op.create("/fine", new byte[0]), Op.setData(path, utf8("x"), -1));

    assertThat(WriteChecks.reservedPath(ops, ZNODES))
        .startsWith("ops[1]: path " + path + " is at or under /zoolander");
    assertThatThrownBy(() -> WriteChecks.check(new Message.Write(1, 1, ops), ZNODES))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reserved");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/zoolanderx", "/zoo", "/a/zoolander/state", "/zoolander-data"})
  void otherPathsAreNot(String path) {
    assertThat(WriteChecks.reservedPath(List.of(Op.delete(path, -1)), ZNODES)).isNull();
    assertThat(
            WriteChecks.reservedPath(
                List.of(Op.createSequential("/zoolander/", new byte[0])), new Znodes("/rp")))
        .isNull();
  }

  @Test
  void aSequentialCreateUnderTheBasePathIsReservedToo() {
    assertThat(
            WriteChecks.reservedPath(
                List.of(Op.createSequential("/zoolander/", new byte[0])), ZNODES))
        .isNotNull();
  }

  @Test
  void theSequencedFrameSizeIsExact() {
    List<List<Op>> writes =
        List.of(
            List.of(Op.create("/a", new byte[0])),
            List.of(
                Op.createSequential("/q/", utf8("ü")),
                Op.setData("/日本", new byte[300], 4),
                Op.delete("/d", -1),
                Op.check("/c", 7)),
            List.of(Op.setData("/big", new byte[WireSettings.MAX_DATA_BYTES], -1)));
    for (List<Op> ops : writes) {
      ByteBuf frame = Unpooled.buffer();
      Codec.encode(new Message.Sequenced(Long.MAX_VALUE, Long.MAX_VALUE, 3, 4, ops), frame);
      assertThat(WriteChecks.sequencedFrameBytes(ops))
          .isEqualTo(WireSettings.LENGTH_FIELD_BYTES + frame.readableBytes());
    }
  }

  @Test
  void aWriteWhoseSequencedFrameWouldBeTooLargeFails() {
    byte[] max = new byte[WireSettings.MAX_DATA_BYTES];
    Message.Write twoMax =
        new Message.Write(1, 1, List.of(Op.create("/a", max), Op.create("/b", max)));

    assertThatThrownBy(() -> WriteChecks.check(twoMax, ZNODES))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(
            "too large to sequence",
            "over the maximum frame of " + WireSettings.DEFAULT_MAX_FRAME_BYTES);
    WriteChecks.check(new Message.Write(1, 1, List.of(Op.create("/a", max))), ZNODES); // one fits
  }
}
