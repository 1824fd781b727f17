package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.allSamples;
import static io.zoolander.wire.WireTestSupport.decode;
import static io.zoolander.wire.WireTestSupport.encode;
import static io.zoolander.wire.WireTestSupport.sampleMessages;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.zoolander.wire.WireTestSupport.Peer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every message, op and result survives encoding and decoding through the real pipeline unchanged.
 */
class MessageRoundTripTest {

  static Stream<Message> messages() {
    return allSamples().stream();
  }

  @ParameterizedTest
  @MethodSource("messages")
  void roundTrips(Message message) {
    byte[] bytes = encode(message);

    assertThat(decode(bytes)).containsExactly(message);
  }

  @ParameterizedTest
  @MethodSource("messages")
  void framesHaveTheDocumentedHeader(Message message) {
    ByteBuffer frame = ByteBuffer.wrap(encode(message));

    assertThat(frame.getInt())
        .as("length prefix counts the bytes after it")
        .isEqualTo(frame.remaining());
    assertThat(frame.get()).isEqualTo((byte) WireSettings.PROTOCOL_VERSION);
  }

  @Test
  void samplesCoverEveryMessageTypeOpResultAndEnum() {
    Set<Class<?>> types = new HashSet<>();
    Set<Class<?>> ops = new HashSet<>();
    Set<Class<?>> results = new HashSet<>();
    for (Message m : allSamples()) {
      types.add(m.getClass());
      List<Op> opList =
          m instanceof Message.Write w
              ? w.ops()
              : m instanceof Message.Sequenced s ? s.ops() : List.of();
      opList.forEach(op -> ops.add(op.getClass()));
      if (m instanceof Message.Reply r) {
        r.results().forEach(res -> results.add(res.getClass()));
      }
    }
    assertThat(types).containsExactlyInAnyOrder(Message.class.getPermittedSubclasses());
    assertThat(ops).containsExactlyInAnyOrder(Op.class.getPermittedSubclasses());
    assertThat(results).containsExactlyInAnyOrder(OpResult.class.getPermittedSubclasses());
  }

  @Test
  void everyTypeIsSentWithADistinctTypeByte() {
    Set<Byte> typeBytes = new HashSet<>();
    Set<Class<?>> seen = new HashSet<>();
    for (Message m : sampleMessages()) {
      if (seen.add(m.getClass())) {
        typeBytes.add(encode(m)[5]);
      }
    }
    assertThat(typeBytes).hasSize(Message.class.getPermittedSubclasses().length);
  }

  @Test
  void manyMessagesInOneReadAllArrive() {
    List<Message> all = sampleMessages();

    byte[] bytes = encode(all.toArray(Message[]::new));

    assertThat(decode(bytes)).containsExactlyElementsOf(all);
  }

  @Test
  void messagesSplitAcrossReadsAtEveryByteArrive() {
    List<Message> some = sampleMessages().subList(0, 20);
    byte[] bytes = encode(some.toArray(Message[]::new));
    Peer peer = new Peer();

    List<Message> got = new ArrayList<>();
    for (byte b : bytes) {
      peer.channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
      got.addAll(peer.inbound());
    }

    assertThat(got).containsExactlyElementsOf(some);
    assertThat(peer.recorder.exceptions).isEmpty();
    assertThat(peer.channel.isOpen()).isTrue();
    peer.channel.finishAndReleaseAll();
  }

  @Test
  void everyErrorCodeRoundTripsAndOnlyProtocolCodesClose() {
    assertThat(EnumSet.allOf(ErrorCode.class).stream().filter(ErrorCode::closesConnection))
        .containsExactlyInAnyOrder(
            ErrorCode.FRAME_TOO_LARGE,
            ErrorCode.MALFORMED_FRAME,
            ErrorCode.UNKNOWN_MESSAGE_TYPE,
            ErrorCode.UNSUPPORTED_VERSION);
    for (ErrorCode code : ErrorCode.values()) {
      assertThat(ErrorCode.fromCode(code.code())).isSameAs(code);
    }
  }
}
