package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.concat;
import static io.zoolander.wire.WireTestSupport.decode;
import static io.zoolander.wire.WireTestSupport.encode;
import static io.zoolander.wire.WireTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.WireTestSupport.Peer;
import io.zoolander.wire.WireTestSupport.Raw;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A client request (WRITE, READ, WATCH) whose frame parses but whose ops, read kind or path are
 * invalid is refused by the pipeline with an ERROR naming the request and the code for the problem;
 * the connection stays open and the frames after it are delivered. Nothing is fired down the
 * pipeline.
 */
class RefusedRequestTest {
  static final int WRITE = 2;
  static final int READ = 7;
  static final int WATCH = 17;
  static final long REQUEST = 42;

  /** A valid frame sent after each bad one: it must still be delivered. */
  static final Message NEXT = new Message.Write(1, REQUEST + 1, List.of(Op.delete("/next", -1)));

  static Message.Error refuses(byte[] frame, ErrorCode expected) {
    Peer peer = new Peer();

    List<Message> delivered = peer.receive(concat(frame, encode(NEXT)));

    assertThat(delivered).as("messages delivered").containsExactly(NEXT);
    assertThat(peer.recorder.exceptions).as("exceptions fired").isEmpty();
    assertThat(peer.channel.isOpen()).as("channel open").isTrue();
    List<Message> answer = decode(peer.sent());
    assertThat(answer).hasSize(1);
    Message.Error error = (Message.Error) answer.get(0);
    assertThat(error.code()).isEqualTo(expected);
    assertThat(error.code().closesConnection()).isFalse();
    assertThat(error.requestId()).isEqualTo(REQUEST);
    peer.channel.finishAndReleaseAll();
    return error;
  }

  static Raw write() {
    return Raw.frame(WRITE).i64(1).i64(REQUEST);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "a",
        "/a/",
        "//",
        "/a//b",
        "/a/./b",
        "/a/../b",
        "/bad\u0001char",
        "/x\uFFFD",
        "/a\u0000b",
        "/zoo/\uD83D\uDE00"
      })
  void anInvalidPathInAnyOpIsInvalidPath(String path) {
    assertThat(
            refuses(
                    write().i32(2).i8(3).str("/fine").i32(-1).i8(4).str(path).i32(-1).build(),
                    ErrorCode.INVALID_PATH)
                .message())
        .contains("WRITE " + REQUEST, "ops[1]", "path");
    refuses(write().i32(1).i8(1).str(path).i8(0).bytes(utf8("d")).build(), ErrorCode.INVALID_PATH);
    refuses(
        write().i32(1).i8(2).str(path).bytes(utf8("d")).i32(-1).build(), ErrorCode.INVALID_PATH);
    refuses(write().i32(1).i8(3).str(path).i32(-1).build(), ErrorCode.INVALID_PATH);
  }

  @Test
  void aSequentialCreateMayEndInSlashButNothingElseMay() {
    Peer peer = new Peer();
    byte[] sequential =
        write()
            .i32(1)
            .i8(1)
            .str("/queue/")
            .i8(CreateMode.PERSISTENT_SEQUENTIAL.toFlag())
            .bytes(utf8("d"))
            .build();
    assertThat(peer.receive(sequential)).singleElement().isInstanceOf(Message.Write.class);
    peer.channel.finishAndReleaseAll();
    refuses(
        write().i32(1).i8(1).str("/queue/").i8(0).bytes(utf8("d")).build(), ErrorCode.INVALID_PATH);
  }

  @Test
  void anInvalidUtf8PathIsInvalidPath() {
    refuses(
        Raw.frame(READ)
            .i64(1)
            .i64(REQUEST)
            .i8(1)
            .bytes(new byte[] {'/', (byte) 0xC3, (byte) 0x28})
            .i64(0)
            .build(),
        ErrorCode.INVALID_PATH);
  }

  @Test
  void anInvalidReadPathIsInvalidPath() {
    assertThat(
            refuses(
                    Raw.frame(READ).i64(1).i64(REQUEST).i8(1).str("no-slash").i64(0).build(),
                    ErrorCode.INVALID_PATH)
                .message())
        .contains("READ " + REQUEST, "path");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 5, 9, 255})
  void anUnknownOpTypeIsUnknownOpWhateverFollows(int type) {
    // The op's layout is unknown, so the rest of the frame is skipped unparsed: here, bytes no op
    // would hold.
    assertThat(
            refuses(
                    write().i32(2).i8(3).str("/a").i32(0).i8(type).i64(-1).i8(7).build(),
                    ErrorCode.UNKNOWN_OP)
                .message())
        .contains("ops[1]", "unknown op type " + type);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 4, 9, 255})
  void anUnknownReadKindIsUnknownOp(int kind) {
    assertThat(
            refuses(
                    Raw.frame(READ).i64(1).i64(REQUEST).i8(kind).str("/a").i64(0).build(),
                    ErrorCode.UNKNOWN_OP)
                .message())
        .contains("kind", String.valueOf(kind));
  }

  @Test
  void anInvalidWatchPathIsInvalidPathNamingTheWatch() {
    assertThat(
            refuses(
                    Raw.frame(WATCH).i64(1).i64(REQUEST).i8(1).str("/a/").i64(0).build(),
                    ErrorCode.INVALID_PATH)
                .message())
        .contains("WATCH " + REQUEST, "path");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 4, 9, 255})
  void anUnknownWatchKindIsUnknownOp(int kind) {
    assertThat(
            refuses(
                    Raw.frame(WATCH).i64(1).i64(REQUEST).i8(kind).str("/a").i64(0).build(),
                    ErrorCode.UNKNOWN_OP)
                .message())
        .contains("WATCH " + REQUEST, "kind", String.valueOf(kind));
  }

  @Test
  void nonReplicatedCreateModesAreInvalidOp() {
    for (CreateMode mode : WireTestSupport.unsupportedModes()) {
      assertThat(
              refuses(
                      write().i32(1).i8(1).str("/e").i8(mode.toFlag()).bytes(utf8("d")).build(),
                      ErrorCode.INVALID_OP)
                  .message())
          .contains("mode", mode.name());
    }
    assertThat(
            refuses(
                    write().i32(1).i8(1).str("/e").i8(99).bytes(utf8("d")).build(),
                    ErrorCode.INVALID_OP)
                .message())
        .contains("unknown create mode flag 99");
  }

  @Test
  void aVersionBelowMinusOneIsInvalidOp() {
    refuses(write().i32(1).i8(3).str("/a").i32(-2).build(), ErrorCode.INVALID_OP);
    refuses(write().i32(1).i8(4).str("/a").i32(Integer.MIN_VALUE).build(), ErrorCode.INVALID_OP);
    refuses(
        write().i32(1).i8(2).str("/a").bytes(new byte[0]).i32(-7).build(), ErrorCode.INVALID_OP);
  }

  @Test
  void aWriteWithoutOpsIsInvalidOp() {
    refuses(write().i32(0).build(), ErrorCode.INVALID_OP);
  }

  @Test
  void dataOverTheLimitIsTooLargeWhenTheFrameHoldsIt() {
    byte[] data = new byte[WireSettings.MAX_DATA_BYTES + 1];
    assertThat(
            refuses(write().i32(1).i8(2).str("/a").bytes(data).i32(-1).build(), ErrorCode.TOO_LARGE)
                .message())
        .contains(
            "data: " + data.length + " bytes exceed the limit of " + WireSettings.MAX_DATA_BYTES);
    refuses(write().i32(1).i8(1).str("/a").i8(0).bytes(data).build(), ErrorCode.TOO_LARGE);
  }

  @Test
  void moreOpsThanTheLimitIsTooLarge() {
    Raw raw = write().i32(WireSettings.MAX_OPS_PER_MESSAGE + 1);
    for (int i = 0; i <= WireSettings.MAX_OPS_PER_MESSAGE; i++) {
      raw.i8(3).str("/a").i32(-1);
    }
    assertThat(refuses(raw.build(), ErrorCode.TOO_LARGE).message())
        .contains("1001 ops exceed the limit of 1000");
  }

  @Test
  void aLyingLengthBeforeTheInvalidValueIsStillMalformed() {
    // Structure is checked first: a path length beyond the frame is malformed even in a request.
    MalformedFrameTest.malformed(
        write().i32(1).i8(3).i32(1000).i8('/').i64(0).build(), "op path: length 1000");
  }

  @Test
  void noRefusalIsQueuedWhileTheChannelIsNotWritable() {
    // A peer that does not read its answers makes the channel unwritable (outbound over the high
    // water mark).
    Peer peer = new Peer();
    byte[] bad = write().i32(1).i8(3).str("/a/").i32(-1).build();
    peer.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, false);

    List<Message> delivered = peer.receive(concat(bad, bad, bad, encode(NEXT)));

    assertThat(delivered).containsExactly(NEXT);
    assertThat(peer.sent()).isEmpty();
    assertThat(peer.channel.isOpen()).isTrue();

    peer.channel.unsafe().outboundBuffer().setUserDefinedWritability(1, true);
    peer.receive(bad);
    assertThat(decode(peer.sent()))
        .singleElement()
        .satisfies(m -> assertThat(((Message.Error) m).code()).isEqualTo(ErrorCode.INVALID_PATH));
    peer.channel.finishAndReleaseAll();
  }
}
