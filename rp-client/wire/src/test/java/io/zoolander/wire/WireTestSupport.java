package io.zoolander.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/** Channels, raw frames and sample messages for the wire tests. */
final class WireTestSupport {
  private WireTestSupport() {}

  /**
   * Records every exception that reaches the end of the pipeline, so none escapes a test as a
   * throw.
   */
  static final class ExceptionRecorder extends ChannelInboundHandlerAdapter {
    final List<Throwable> exceptions = new ArrayList<>();

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      exceptions.add(cause);
    }
  }

  /**
   * An embedded channel running the wire protocol, and what reached the end of its pipeline.
   *
   * <p>Not {@code ScriptedPeer} (zoolander-test-support): these tests feed the codec bytes by hand
   * and look at each exception in memory, without a socket, which a network peer cannot; and
   * zoolander-test-support depends on this module, so its tests cannot use it.
   */
  static final class Peer {
    final EmbeddedChannel channel = new EmbeddedChannel();
    final ExceptionRecorder recorder = new ExceptionRecorder();

    Peer(int maxFrameBytes) {
      WirePipeline.install(channel.pipeline(), maxFrameBytes);
      channel.pipeline().addLast(recorder);
    }

    Peer() {
      this(WireSettings.DEFAULT_MAX_FRAME_BYTES);
    }

    /** Feeds bytes in as if read from the network; returns the messages decoded. */
    List<Message> receive(byte[] bytes) {
      channel.writeInbound(Unpooled.wrappedBuffer(bytes));
      return inbound();
    }

    List<Message> inbound() {
      List<Message> out = new ArrayList<>();
      for (Object o; (o = channel.readInbound()) != null; ) {
        out.add((Message) o);
      }
      return out;
    }

    /** Everything written to the network so far, as one byte array. */
    byte[] sent() {
      ByteBuf all = Unpooled.buffer();
      for (Object o; (o = channel.readOutbound()) != null; ) {
        ByteBuf b = (ByteBuf) o;
        all.writeBytes(b);
        b.release();
      }
      byte[] bytes = new byte[all.readableBytes()];
      all.readBytes(bytes);
      return bytes;
    }
  }

  /** The bytes of {@code messages} as one peer writes them. */
  static byte[] encode(Message... messages) {
    Peer peer = new Peer();
    for (Message m : messages) {
      peer.channel.writeOutbound(m);
    }
    byte[] bytes = peer.sent();
    peer.channel.finishAndReleaseAll();
    return bytes;
  }

  /** What a well-behaved peer decodes from {@code bytes}; fails the test on any protocol error. */
  static List<Message> decode(byte[] bytes) {
    Peer peer = new Peer();
    List<Message> messages = peer.receive(bytes);
    if (!peer.recorder.exceptions.isEmpty()) {
      throw new AssertionError("decoding failed", peer.recorder.exceptions.get(0));
    }
    peer.channel.finishAndReleaseAll();
    return messages;
  }

  /** Builds a raw frame field by field, to write what a correct encoder never would. */
  static final class Raw {
    private final ByteBuf body = Unpooled.buffer();

    static Raw frame(int version, int type) {
      Raw r = new Raw();
      r.body.writeByte(version).writeByte(type);
      return r;
    }

    static Raw frame(int type) {
      return frame(WireSettings.PROTOCOL_VERSION, type);
    }

    Raw i8(int v) {
      body.writeByte(v);
      return this;
    }

    Raw i32(int v) {
      body.writeInt(v);
      return this;
    }

    Raw i64(long v) {
      body.writeLong(v);
      return this;
    }

    Raw str(String s) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      body.writeInt(b.length).writeBytes(b);
      return this;
    }

    Raw bytes(byte[] b) {
      body.writeInt(b.length).writeBytes(b);
      return this;
    }

    /** The frame with a correct length prefix. */
    byte[] build() {
      return buildWithLength(body.readableBytes());
    }

    /** The frame with {@code length} in its prefix, whatever the body's size. */
    byte[] buildWithLength(int length) {
      ByteBuf f = Unpooled.buffer().writeInt(length).writeBytes(body.duplicate());
      byte[] bytes = new byte[f.readableBytes()];
      f.readBytes(bytes);
      return bytes;
    }
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static byte[] filled(int size, int seed) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }

  static String repeat(String s, int times) {
    return String.join("", Collections.nCopies(times, s));
  }

  static final String UNICODE_PATH = "/zoo/ünïcødé/日本語/Ωμέγα";

  /** One op of every kind and mode, with empty, small and unicode values. */
  static List<Op> allOps() {
    return List.of(
        Op.create("/a", new byte[0]),
        Op.create(UNICODE_PATH, utf8("ß∂ƒ")),
        Op.createSequential("/queue/", utf8("x")),
        Op.createSequential("/queue/item-", new byte[] {0, -1, 127, -128}),
        Op.setData("/a", utf8("v2"), -1),
        Op.setData("/a", new byte[0], Integer.MAX_VALUE),
        Op.delete("/a", -1),
        Op.delete(UNICODE_PATH, 0),
        Op.check("/", -1),
        Op.check("/a/b/c", 7));
  }

  /**
   * A sample of every message type, every op and result kind, every enum value, and boundary
   * values. Leaves out megabyte messages, for speed; see {@link #largeMessages()}.
   */
  static List<Message> sampleMessages() {
    List<Message> m = new ArrayList<>();
    for (Role role : Role.values()) {
      m.add(Message.Hello.of(role, role.name().toLowerCase(Locale.ROOT) + "-1"));
    }
    m.add(new Message.Hello(Role.CLIENT, "ü", 255));
    m.add(new Message.Hello(Role.ADMIN, repeat("i", WireSettings.MAX_ID_BYTES), 1));
    for (Op op : allOps()) {
      m.add(new Message.Write(1, 2, List.of(op)));
    }
    m.add(new Message.Write(Long.MAX_VALUE, Long.MAX_VALUE, allOps()));
    m.add(new Message.Write(0, 0, List.of(Op.check("/x", 3), Op.setData("/x", utf8("y"), 3))));
    m.add(new Message.Sequenced(0, 1, 0, 0, List.of(Op.create("/s", utf8("d")))));
    m.add(new Message.Sequenced(Long.MAX_VALUE, Long.MAX_VALUE, 5, 6, allOps()));
    m.add(Message.Sequenced.of(3, 42, new Message.Write(9, 10, List.of(Op.delete("/d", 2)))));
    m.add(new Message.Reply(1, 2, 1, 0, List.of(new OpResult.Created("/queue/item-0000000001"))));
    m.add(
        new Message.Reply(
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Integer.MAX_VALUE,
            List.of(
                new OpResult.Created(UNICODE_PATH),
                new OpResult.DataSet(0),
                new OpResult.DataSet(Integer.MAX_VALUE),
                new OpResult.Deleted(),
                new OpResult.Checked())));
    m.add(
        new Message.Reply(
            3,
            4,
            5,
            6,
            List.of(
                new OpResult.Failed(Code.OK),
                new OpResult.Failed(Code.BADVERSION),
                new OpResult.Failed(Code.RUNTIMEINCONSISTENCY))));
    for (Code code : Code.values()) {
      m.add(new Message.Reply(7, 8, 9, 1, List.of(new OpResult.Failed(code))));
    }
    m.add(new Message.Ack(0, 0, 0));
    m.add(new Message.Ack(Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE));
    m.add(new Message.Retransmit(1, 2, 3, 3));
    m.add(new Message.Retransmit(Integer.MAX_VALUE, Long.MAX_VALUE, 1, Long.MAX_VALUE));
    for (ReadKind kind : ReadKind.values()) {
      m.add(new Message.Read(1, 2, kind, "/r", 0));
    }
    m.add(
        new Message.Read(
            Long.MAX_VALUE, Long.MAX_VALUE, ReadKind.GET_DATA, UNICODE_PATH, Long.MAX_VALUE));
    m.add(new Message.ReadReply(1, 2, 3, 4, Code.OK, utf8("data"), 5, List.of()));
    m.add(new Message.ReadReply(1, 2, 3, 4, Code.NONODE, new byte[0], -1, List.of()));
    m.add(
        new Message.ReadReply(
            1, 2, 3, 4, Code.OK, new byte[0], 0, List.of("a", "b-0000000001", "日本")));
    m.add(
        new Message.ReadReply(
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            Code.OK,
            filled(300, 1),
            Integer.MAX_VALUE,
            List.of()));
    for (DuplicateState state : DuplicateState.values()) {
      m.add(new Message.Status(1, 2, 3, state));
    }
    m.add(
        new Message.Status(
            Integer.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, DuplicateState.ACTIVE));
    for (WatchKind kind : WatchKind.values()) {
      m.add(new Message.Watch(1, 2, kind, "/w", 3));
    }
    m.add(
        new Message.Watch(
            Long.MAX_VALUE, Long.MAX_VALUE, WatchKind.DATA, UNICODE_PATH, Long.MAX_VALUE));
    m.add(new Message.Unwatch(0, 0));
    m.add(new Message.Unwatch(Long.MAX_VALUE, Long.MAX_VALUE));
    m.add(new Message.WatchEvent(1, 2, 3, 0, List.of()));
    for (WatchEventType type : WatchEventType.values()) {
      m.add(
          new Message.WatchEvent(1, 2, 3, 4, List.of(new Message.WatchEvent.Change(type, "/w/c"))));
    }
    m.add(
        new Message.WatchEvent(
            Long.MAX_VALUE,
            Long.MAX_VALUE,
            Integer.MAX_VALUE,
            Long.MAX_VALUE,
            List.of(
                new Message.WatchEvent.Change(WatchEventType.NODE_CREATED, UNICODE_PATH),
                new Message.WatchEvent.Change(WatchEventType.NODE_CHILDREN_CHANGED, "/"))));
    m.add(new Message.PlannedSlowness(3, 0));
    m.add(new Message.PlannedSlowness(Integer.MAX_VALUE, WireSettings.MAX_PLANNED_SLOWNESS_MS));
    m.add(new Message.Challenge(filled(WireSettings.NONCE_BYTES, 7), "duplicate-3"));
    m.add(new Message.Auth("writer-1", filled(WireSettings.PROOF_BYTES, 9)));
    m.add(
        new Message.Auth(
            repeat("p", WireSettings.MAX_PRINCIPAL_BYTES), filled(WireSettings.PROOF_BYTES, 3)));
    m.add(new Message.Auth("", new byte[0]));
    m.add(new Message.TransferRequest(0, 0));
    m.add(new Message.TransferRequest(Long.MAX_VALUE, Integer.MAX_VALUE));
    m.add(new Message.TransferChunk(1, 2, 3, 40, 40, 0, 1, List.of()));
    m.add(
        new Message.TransferChunk(
            Long.MAX_VALUE,
            1,
            7,
            100,
            250,
            3,
            5,
            List.of(
                new Message.TransferChunk.Node("/zoolander/data", new byte[0], 0, 12),
                new Message.TransferChunk.Node(
                    "/zoolander/data/a✋", filled(300, 5), Integer.MAX_VALUE, 0),
                new Message.TransferChunk.Node("/zoolander/clients/7", filled(40, 1), 3, 0))));
    for (ErrorCode code : ErrorCode.values()) {
      m.add(Message.Error.of(code, "because " + code));
    }
    m.add(Message.Error.of(ErrorCode.INTERNAL, ""));
    m.add(Message.Error.forRequest(ErrorCode.INVALID_OP, 0, "no /zoolander writes"));
    m.add(new Message.Error(ErrorCode.OVERLOADED, Long.MAX_VALUE, Long.MAX_VALUE, "slow down ✋"));
    m.add(Message.Error.of(ErrorCode.INTERNAL, repeat("e", WireSettings.MAX_ERROR_MESSAGE_BYTES)));
    return m;
  }

  /** Messages at the size limits: data of MAX_DATA_BYTES, MAX_OPS_PER_MESSAGE ops. */
  static List<Message> largeMessages() {
    byte[] max = filled(WireSettings.MAX_DATA_BYTES, 7);
    List<Op> manyOps = new ArrayList<>();
    List<OpResult> manyResults = new ArrayList<>();
    for (int i = 0; i < WireSettings.MAX_OPS_PER_MESSAGE; i++) {
      manyOps.add(i % 2 == 0 ? Op.create("/n" + i, new byte[] {(byte) i}) : Op.delete("/n" + i, i));
      manyResults.add(i % 2 == 0 ? new OpResult.Created("/n" + i) : new OpResult.Deleted());
    }
    List<String> manyChildren = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      manyChildren.add("child-" + i);
    }
    return List.of(
        new Message.Write(1, 1, List.of(Op.create("/big", max))),
        new Message.Sequenced(1, 1, 1, 1, List.of(Op.setData("/big", max, 0))),
        new Message.ReadReply(1, 1, 0, 1, Code.OK, max, 1, List.of()),
        new Message.Write(2, 2, manyOps),
        new Message.Reply(2, 2, 2, 0, manyResults),
        new Message.ReadReply(1, 1, 0, 1, Code.OK, new byte[0], 0, manyChildren));
  }

  static List<Message> allSamples() {
    List<Message> all = new ArrayList<>(sampleMessages());
    all.addAll(largeMessages());
    return all;
  }

  static CreateMode[] unsupportedModes() {
    return Arrays.stream(CreateMode.values())
        .filter(mode -> mode != CreateMode.PERSISTENT && mode != CreateMode.PERSISTENT_SEQUENTIAL)
        .toArray(CreateMode[]::new);
  }
}
