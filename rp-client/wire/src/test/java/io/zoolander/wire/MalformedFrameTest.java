package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.concat;
import static io.zoolander.wire.WireTestSupport.decode;
import static io.zoolander.wire.WireTestSupport.encode;
import static io.zoolander.wire.WireTestSupport.repeat;
import static io.zoolander.wire.WireTestSupport.sampleMessages;
import static io.zoolander.wire.WireTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.WireTestSupport.Peer;
import io.zoolander.wire.WireTestSupport.Raw;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kind of bad frame is answered with an ERROR frame carrying the right code, the connection
 * is closed, the failure reaches the application as a WireException, and nothing else escapes.
 */
class MalformedFrameTest {
  // Type bytes as documented in package-info.
  static final int HELLO = 1;
  static final int WRITE = 2;
  static final int SEQUENCED = 3;
  static final int REPLY = 4;
  static final int RETRANSMIT = 6;
  static final int READ = 7;
  static final int READ_REPLY = 8;
  static final int STATUS = 9;
  static final int ERROR = 10;

  static final int MAX = WireSettings.DEFAULT_MAX_FRAME_BYTES;

  /**
   * Feeds {@code bytes} to a fresh server-side peer and checks the protocol's answer: no message
   * delivered, exactly one ERROR frame with {@code expected} written, the channel closed, one
   * WireException with the same code fired.
   *
   * @return the ERROR the peer would read
   */
  static Message.Error rejects(byte[] bytes, ErrorCode expected) {
    Peer peer = new Peer();

    List<Message> delivered = peer.receive(bytes);

    assertThat(delivered).as("messages delivered").isEmpty();
    assertThat(peer.recorder.exceptions).as("exceptions fired").hasSize(1);
    assertThat(peer.recorder.exceptions.get(0))
        .isInstanceOfSatisfying(WireException.class, e -> assertThat(e.code()).isEqualTo(expected));
    assertThat(peer.channel.isOpen()).as("channel open").isFalse();
    List<Message> answer = decode(peer.sent());
    assertThat(answer).hasSize(1);
    Message.Error error = (Message.Error) answer.get(0);
    assertThat(error.code()).isEqualTo(expected);
    assertThat(error.requestId()).isEqualTo(Message.Error.NO_REQUEST);
    assertThat(error.message()).isEqualTo(peer.recorder.exceptions.get(0).getMessage());
    peer.channel.finishAndReleaseAll();
    return error;
  }

  static Message.Error malformed(byte[] bytes, String... messageParts) {
    Message.Error error = rejects(bytes, ErrorCode.MALFORMED_FRAME);
    assertThat(error.message()).contains(messageParts);
    return error;
  }

  // ---------------------------------------------------------------- frame level

  @Test
  void oversizedFrameIsRejectedFromItsLengthAloneWithoutWaitingForTheBody() {
    // Only the 4-byte length prefix is sent: the ERROR must not wait for (or buffer) the announced
    // body.
    byte[] header =
        Raw.frame(HELLO).buildWithLength(MAX - 3); // frame = 4 + MAX - 3 = MAX + 1 bytes
    byte[] prefixOnly = Arrays.copyOf(header, 4);

    Message.Error error = rejects(prefixOnly, ErrorCode.FRAME_TOO_LARGE);

    assertThat(error.message()).contains(String.valueOf(MAX));
  }

  @Test
  void hugeLengthIsRejected() {
    rejects(Raw.frame(WRITE).buildWithLength(Integer.MAX_VALUE), ErrorCode.FRAME_TOO_LARGE);
  }

  @Test
  void frameOfExactlyTheMaximumIsAccepted() {
    int dataBytes = WireSettings.MAX_DATA_BYTES;
    Message m =
        new Message.ReadReply(
            1,
            2,
            3,
            4,
            org.apache.zookeeper.KeeperException.Code.OK,
            new byte[dataBytes],
            0,
            List.of());
    byte[] frame = encode(m);
    Peer peer = new Peer(frame.length);

    assertThat(peer.receive(frame)).containsExactly(m);

    Peer smaller = new Peer(frame.length - 1);
    smaller.receive(Arrays.copyOf(frame, 4));
    assertThat(smaller.channel.isOpen()).isFalse();
    assertThat(decode(smaller.sent()))
        .singleElement()
        .satisfies(
            e -> assertThat(((Message.Error) e).code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE));
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, Integer.MIN_VALUE})
  void negativeLengthIsReadUnsignedAndSoTooLarge(int length) {
    rejects(Raw.frame(HELLO).buildWithLength(length), ErrorCode.FRAME_TOO_LARGE);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1})
  void frameWithoutVersionAndTypeIsMalformed(int length) {
    byte[] frame = Arrays.copyOf(Raw.frame(HELLO).buildWithLength(length), 4 + length);
    malformed(frame, "version and type");
  }

  @ParameterizedTest
  @ValueSource(
      ints = {0, 99, 127, 128, 255}) // 11, 12 and 13 are CHALLENGE, AUTH and PLANNED_SLOWNESS
  void unknownTypeIsRejected(int type) {
    Message.Error error = rejects(Raw.frame(type).i64(1).build(), ErrorCode.UNKNOWN_MESSAGE_TYPE);
    assertThat(error.message()).contains("unknown message type " + type);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 2, 255})
  void unsupportedVersionIsRejected(int version) {
    byte[] validHello = encode(Message.Hello.of(Role.CLIENT, "c"));
    byte[] validHelloBody = Arrays.copyOfRange(validHello, 6, validHello.length);
    Raw raw = Raw.frame(version, HELLO);
    for (byte b : validHelloBody) {
      raw.i8(b);
    }
    Message.Error error = rejects(raw.build(), ErrorCode.UNSUPPORTED_VERSION);
    assertThat(error.message())
        .contains("version " + version, "speaks version " + WireSettings.PROTOCOL_VERSION);
  }

  @Test
  void unsupportedVersionOfAnUnknownTypeIsReportedAsTheVersion() {
    rejects(Raw.frame(7, 200).build(), ErrorCode.UNSUPPORTED_VERSION);
  }

  @Test
  void anErrorFrameFromAnotherVersionIsStillRead() {
    byte[] future =
        Raw.frame(2, ERROR)
            .i32(ErrorCode.UNSUPPORTED_VERSION.code())
            .str("I speak 2")
            .i64(123)
            .i8(9)
            .build(); // a later version's fields after the frozen prefix

    assertThat(decode(future))
        .containsExactly(Message.Error.of(ErrorCode.UNSUPPORTED_VERSION, "I speak 2"));
  }

  @Test
  void anUnreadableErrorFrameFromAnotherVersionIsAnUnsupportedVersion() {
    rejects(
        Raw.frame(2, ERROR).i32(ErrorCode.MALFORMED_FRAME.code()).i32(100).build(),
        ErrorCode.UNSUPPORTED_VERSION);
  }

  // ---------------------------------------------------------------- truncated and padded bodies

  static Stream<Message> messages() {
    return sampleMessages().stream();
  }

  @ParameterizedTest
  @MethodSource("messages")
  void everyTruncationOfEveryMessageIsMalformed(Message message) {
    byte[] frame = encode(message);
    int body = frame.length - 6;
    // Cut the body at every length (sampled for long bodies), with a length prefix that matches the
    // cut.
    int step = Math.max(1, body / 64);
    for (int keep = 0; keep < body; keep += (keep < 16 ? 1 : step)) {
      byte[] cut = Arrays.copyOf(frame, 6 + keep);
      Unpooled.wrappedBuffer(cut).setInt(0, 2 + keep);
      rejects(cut, ErrorCode.MALFORMED_FRAME);
    }
  }

  @ParameterizedTest
  @MethodSource("messages")
  void trailingBytesAfterEveryMessageAreMalformed(Message message) {
    byte[] frame = concat(encode(message), new byte[] {0});
    Unpooled.wrappedBuffer(frame).setInt(0, frame.length - 4);

    malformed(frame, "1 trailing bytes");
  }

  @Test
  void aLengthPrefixLongerThanWhatArrivesWaitsAndDeliversNothing() {
    byte[] frame = encode(Message.Hello.of(Role.CLIENT, "c"));
    Peer peer = new Peer();

    assertThat(peer.receive(Arrays.copyOf(frame, frame.length - 1))).isEmpty();

    assertThat(peer.channel.isOpen()).isTrue();
    assertThat(peer.recorder.exceptions).isEmpty();
    assertThat(peer.receive(new byte[] {frame[frame.length - 1]})).hasSize(1);
    peer.channel.finishAndReleaseAll();
  }

  // ---------------------------------------------------------------- lying lengths and counts

  @ParameterizedTest
  @ValueSource(ints = {-1, Integer.MIN_VALUE})
  void negativeStringLengthIsMalformed(int length) {
    malformed(Raw.frame(HELLO).i8(Role.CLIENT.code()).i32(length).build(), "id: negative length");
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 1000, Integer.MAX_VALUE})
  void stringLongerThanTheFrameIsMalformed(int length) {
    byte[] frame =
        Raw.frame(READ).i64(1).i64(2).i8(ReadKind.GET_DATA.code()).i32(length).i8('/').build();
    malformed(frame, "path: length " + length);
  }

  @Test
  void stringOverItsLimitIsMalformed() {
    String id = repeat("x", WireSettings.MAX_ID_BYTES + 1);
    malformed(
        Raw.frame(HELLO).i8(Role.CLIENT.code()).str(id).i32(1).build(), "exceeds the limit of 256");
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, Integer.MIN_VALUE})
  void negativeOpCountIsMalformed(int count) {
    malformed(Raw.frame(WRITE).i64(1).i64(2).i32(count).build(), "ops: negative count");
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 1000, WireSettings.MAX_OPS_PER_MESSAGE})
  void opCountLargerThanTheFrameCanHoldIsMalformed(int count) {
    byte[] frame = Raw.frame(WRITE).i64(1).i64(2).i32(count).i8(3).str("/a").i32(-1).build();
    malformed(frame, "ops: count " + count + " needs at least");
  }

  @ParameterizedTest
  @ValueSource(ints = {WireSettings.MAX_OPS_PER_MESSAGE + 1, Integer.MAX_VALUE})
  void opCountOverTheLimitIsMalformed(int count) {
    malformed(
        Raw.frame(SEQUENCED).i64(1).i64(1).i64(1).i64(1).i32(count).build(), "exceeds the limit");
  }

  @ParameterizedTest
  @ValueSource(ints = {-1, 0x7fffffff, WireSettings.MAX_DATA_BYTES + 1})
  void badDataLengthIsMalformed(int length) {
    byte[] frame =
        Raw.frame(WRITE).i64(1).i64(2).i32(1).i8(2).str("/a").i32(length).i32(-1).build();
    malformed(frame, "op data");
  }

  @Test
  void lyingResultCountIsMalformed() {
    malformed(
        Raw.frame(REPLY).i64(1).i64(2).i64(3).i32(0).i32(3).i8(3).build(), "results: count 3");
  }

  @ParameterizedTest
  @ValueSource(ints = {-7, 1_000_000, Integer.MAX_VALUE})
  void lyingChildCountIsMalformed(int count) {
    byte[] frame =
        Raw.frame(READ_REPLY)
            .i64(1)
            .i64(2)
            .i32(3)
            .i64(4)
            .i32(0)
            .bytes(new byte[0])
            .i32(0)
            .i32(count)
            .str("a")
            .build();
    malformed(frame, "children");
  }

  // ---------------------------------------------------------------- invalid field values
  // (Invalid ops and paths in client requests are refused per request instead: RefusedRequestTest.)

  @Test
  void invalidPathInAResultIsMalformed() {
    malformed(
        Raw.frame(REPLY).i64(1).i64(2).i64(3).i32(0).i32(1).i8(1).str("/x/").build(),
        "results[0]",
        "path");
  }

  @Test
  void invalidOpsInASequencedAreMalformed() {
    // SEQUENCED comes from the repeater, which sequences only valid writes: no refusal, the
    // connection is dropped.
    malformed(
        Raw.frame(SEQUENCED).i64(1).i64(1).i64(1).i64(1).i32(1).i8(4).str("/a/").i32(-1).build(),
        "SEQUENCED: ops[0]",
        "path");
    malformed(
        Raw.frame(SEQUENCED).i64(1).i64(1).i64(1).i64(1).i32(1).i8(9).str("/a").i32(0).build(),
        "unknown op type 9");
    malformed(
        Raw.frame(SEQUENCED)
            .i64(1)
            .i64(1)
            .i64(1)
            .i64(1)
            .i32(1)
            .i8(1)
            .str("/e")
            .i8(CreateMode.EPHEMERAL.toFlag())
            .bytes(utf8("d"))
            .build(),
        "mode",
        "EPHEMERAL");
    malformed(
        Raw.frame(SEQUENCED).i64(1).i64(1).i64(1).i64(1).i32(1).i8(3).str("/a").i32(-2).build(),
        "version");
  }

  @Test
  void unknownResultAndEnumCodesAreMalformed() {
    malformed(
        Raw.frame(REPLY).i64(1).i64(2).i64(3).i32(0).i32(1).i8(0).build(), "unknown result type 0");
    malformed(
        Raw.frame(REPLY).i64(1).i64(2).i64(3).i32(0).i32(1).i8(5).i32(424242).build(), "424242");
    malformed(Raw.frame(HELLO).i8(0).str("c").i32(1).build(), "role: unknown code 0");
    malformed(Raw.frame(STATUS).i32(1).i64(2).i64(3).i8(0).build(), "state: unknown code 0");
    malformed(Raw.frame(ERROR).i32(999).str("?").i64(-1).i64(0).build(), "unknown error code 999");
  }

  @Test
  void outOfRangeNumbersAreMalformed() {
    // A request whose ids are invalid cannot be refused by id: the frame is malformed.
    malformed(Raw.frame(WRITE).i64(-1).i64(2).i32(1).i8(3).str("/a").i32(-1).build(), "clientId");
    malformed(Raw.frame(WRITE).i64(1).i64(-2).i32(1).i8(3).str("/a").i32(-1).build(), "requestId");
    malformed(Raw.frame(READ).i64(1).i64(-5).i8(1).str("/a").i64(0).build(), "requestId");
    malformed(Raw.frame(READ).i64(1).i64(2).i8(1).str("/a").i64(-1).build(), "minSeq");
    malformed(Raw.frame(17).i64(1).i64(-5).i8(1).str("/a").i64(0).build(), "watchId");
    malformed(Raw.frame(17).i64(1).i64(2).i8(1).str("/a").i64(-1).build(), "sinceSeq");
    // WATCH_EVENT comes from plugins only: an unknown change type or a bad path is malformed.
    malformed(Raw.frame(19).i64(1).i64(2).i32(0).i64(3).i32(1).i8(9).str("/a").build(), "type");
    malformed(Raw.frame(19).i64(1).i64(2).i32(0).i64(3).i32(1).i8(1).str("a").build(), "path");
    malformed(Raw.frame(19).i64(1).i64(2).i32(0).i64(0).i32(1).i8(1).str("/a").build(), "seq");
    malformed(
        Raw.frame(SEQUENCED).i64(1).i64(0).i64(1).i64(1).i32(1).i8(3).str("/a").i32(-1).build(),
        "seq");
    malformed(Raw.frame(RETRANSMIT).i32(1).i64(1).i64(5).i64(4).build(), "toSeq");
    malformed(Raw.frame(HELLO).i8(1).str("c").i32(256).build(), "protocolVersion");
    malformed(
        Raw.frame(READ_REPLY)
            .i64(1)
            .i64(2)
            .i32(3)
            .i64(4)
            .i32(0)
            .bytes(new byte[0])
            .i32(0)
            .i32(1)
            .str("a/b")
            .build(),
        "children[0]");
  }

  @Test
  void aReadWithTrailingBytesIsMalformedEvenWithAnInvalidPath() {
    // The READ body's layout is fixed: structure is checked before the path is refused.
    malformed(
        Raw.frame(READ).i64(1).i64(2).i8(1).str("bad").i64(0).i8(0).build(), "1 trailing bytes");
  }

  // ---------------------------------------------------------------- after a failure

  @Test
  void framesAfterABadOneAreNotDelivered() {
    byte[] good = encode(Message.Hello.of(Role.CLIENT, "c"));
    byte[] bad = Raw.frame(77).build();

    rejects(concat(bad, good, good), ErrorCode.UNKNOWN_MESSAGE_TYPE);
  }

  @Test
  void framesBeforeABadOneAreDelivered() {
    Message hello = Message.Hello.of(Role.CLIENT, "c");
    Peer peer = new Peer();

    List<Message> got = peer.receive(concat(encode(hello), Raw.frame(77).build(), encode(hello)));

    assertThat(got).containsExactly(hello);
    assertThat(peer.channel.isOpen()).isFalse();
    assertThat(decode(peer.sent())).singleElement().isInstanceOf(Message.Error.class);
  }

  // ---------------------------------------------------------------- outbound

  @Test
  void anOversizedOutboundMessageFailsItsWriteAndKeepsTheConnection() {
    byte[] max = new byte[WireSettings.MAX_DATA_BYTES];
    Message tooBig = new Message.Write(1, 1, List.of(Op.create("/a", max), Op.create("/b", max)));
    Message next = Message.Hello.of(Role.CLIENT, "c");
    Peer peer = new Peer();

    ChannelFuture write = peer.channel.writeAndFlush(tooBig);
    peer.channel.writeAndFlush(next);

    assertThat(write.cause())
        .isInstanceOfSatisfying(
            WireException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.FRAME_TOO_LARGE);
              assertThat(e.getMessage())
                  .contains("Write of", "exceeds the maximum frame of " + MAX);
            });
    assertThat(peer.channel.isOpen()).isTrue();
    assertThat(decode(peer.sent())).containsExactly(next);
    peer.channel.finishAndReleaseAll();
  }

  @Test
  void installRejectsATinyMaximum() {
    EmbeddedChannel channel = new EmbeddedChannel();
    assertThatThrownBy(
            () -> WirePipeline.install(channel.pipeline(), WireSettings.MIN_MAX_FRAME_BYTES - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("maxFrameBytes");
    channel.finishAndReleaseAll();
  }
}
