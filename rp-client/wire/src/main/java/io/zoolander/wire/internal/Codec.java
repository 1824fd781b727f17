package io.zoolander.wire.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.zoolander.wire.DuplicateState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import io.zoolander.wire.WatchEventType;
import io.zoolander.wire.WatchKind;
import io.zoolander.wire.WireException;
import io.zoolander.wire.WireSettings;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Encodes a {@link Message} to the bytes of a frame after its length prefix ({@code
 * [version][type][body]}) and back. The layout is documented in the {@code io.zoolander.wire}
 * package. Internal: not part of the public API.
 */
public final class Codec {
  private Codec() {}

  // Message types: stable, never reuse a retired value.
  static final int HELLO = 1;
  static final int WRITE = 2;
  static final int SEQUENCED = 3;
  static final int REPLY = 4;
  static final int ACK = 5;
  static final int RETRANSMIT = 6;
  static final int READ = 7;
  static final int READ_REPLY = 8;
  static final int STATUS = 9;

  /** ERROR's layout is frozen across protocol versions. */
  static final int ERROR = 10;

  /** Sent only when authentication is configured: a peer without it never sees one. */
  static final int CHALLENGE = 11;

  static final int AUTH = 12;

  /** Plugin to clients only. */
  static final int PLANNED_SLOWNESS = 13;

  /** State transfer: a healthy plugin's snapshot, asked for and relayed by the repeater. */
  static final int TRANSFER_REQUEST = 15;

  static final int TRANSFER_CHUNK = 16;

  /** Watches: client to plugin (WATCH, UNWATCH), plugin to client (WATCH_EVENT). */
  static final int WATCH = 17;

  static final int UNWATCH = 18;
  static final int WATCH_EVENT = 19;

  // Op types.
  static final int OP_CREATE = 1;
  static final int OP_SET_DATA = 2;
  static final int OP_DELETE = 3;
  static final int OP_CHECK = 4;

  // Op result types.
  static final int RESULT_CREATED = 1;
  static final int RESULT_DATA_SET = 2;
  static final int RESULT_DELETED = 3;
  static final int RESULT_CHECKED = 4;
  static final int RESULT_FAILED = 5;

  /**
   * Smallest encoded op: type, path length, a version (DELETE, CHECK); an empty path is invalid but
   * parses.
   */
  private static final int MIN_OP_BYTES = 1 + 4 + 4;

  /** Smallest encoded result: type only (DELETED, CHECKED). */
  private static final int MIN_RESULT_BYTES = 1;

  /** Smallest encoded transfer node: a one-byte path, empty data, two versions. */
  private static final int MIN_TRANSFER_NODE_BYTES = 4 + 1 + 4 + 4 + 4;

  /** Smallest encoded watch change: type, a one-byte path. */
  private static final int MIN_CHANGE_BYTES = 1 + 4 + 1;

  /** Smallest encoded child name: length and one byte. */
  private static final int MIN_CHILD_BYTES = 4 + 1;

  /** The wire name of a message type, for error messages. */
  static String typeName(int type) {
    return switch (type) {
      case HELLO -> "HELLO";
      case WRITE -> "WRITE";
      case SEQUENCED -> "SEQUENCED";
      case REPLY -> "REPLY";
      case ACK -> "ACK";
      case RETRANSMIT -> "RETRANSMIT";
      case READ -> "READ";
      case READ_REPLY -> "READ_REPLY";
      case STATUS -> "STATUS";
      case ERROR -> "ERROR";
      case CHALLENGE -> "CHALLENGE";
      case AUTH -> "AUTH";
      case PLANNED_SLOWNESS -> "PLANNED_SLOWNESS";
      case TRANSFER_REQUEST -> "TRANSFER_REQUEST";
      case TRANSFER_CHUNK -> "TRANSFER_CHUNK";
      case WATCH -> "WATCH";
      case UNWATCH -> "UNWATCH";
      case WATCH_EVENT -> "WATCH_EVENT";
      default -> "type " + type;
    };
  }

  // ---------------------------------------------------------------- encoding

  /** A buffer size that holds most encodings of {@code m} without growing. */
  static int sizeHint(Message m) {
    int hint = 128;
    if (m instanceof Message.Write w) {
      hint += opsHint(w.ops());
    } else if (m instanceof Message.Sequenced s) {
      hint += opsHint(s.ops());
    } else if (m instanceof Message.Reply r) {
      hint += 16 * r.results().size();
    } else if (m instanceof Message.ReadReply r) {
      hint += r.data().length + 16 * r.children().size();
    } else if (m instanceof Message.WatchEvent e) {
      for (Message.WatchEvent.Change c : e.changes()) {
        hint += 8 + c.path().length();
      }
    } else if (m instanceof Message.TransferChunk c) {
      long bytes = 0;
      for (Message.TransferChunk.Node n : c.nodes()) {
        bytes += 16 + n.path().length() + n.data().length;
      }
      hint += (int) Math.min(bytes, Integer.MAX_VALUE - 256);
    }
    return hint;
  }

  private static int opsHint(List<Op> ops) {
    long hint = 0;
    for (Op op : ops) {
      hint += 16 + op.path().length();
      if (op instanceof Op.Create c) {
        hint += c.data().length;
      } else if (op instanceof Op.SetData s) {
        hint += s.data().length;
      }
    }
    return (int) Math.min(hint, Integer.MAX_VALUE - 256);
  }

  /** Writes {@code [version][type][body]} of {@code m} to {@code out}. */
  public static void encode(Message m, ByteBuf out) {
    out.writeByte(WireSettings.PROTOCOL_VERSION);
    if (m instanceof Message.Hello h) {
      out.writeByte(HELLO);
      out.writeByte(h.role().code());
      writeString(out, h.id());
      out.writeInt(h.protocolVersion());
    } else if (m instanceof Message.Write w) {
      out.writeByte(WRITE);
      out.writeLong(w.clientId());
      out.writeLong(w.requestId());
      writeOps(out, w.ops());
    } else if (m instanceof Message.Sequenced s) {
      out.writeByte(SEQUENCED);
      out.writeLong(s.epoch());
      out.writeLong(s.seq());
      out.writeLong(s.clientId());
      out.writeLong(s.requestId());
      writeOps(out, s.ops());
    } else if (m instanceof Message.Reply r) {
      out.writeByte(REPLY);
      out.writeLong(r.clientId());
      out.writeLong(r.requestId());
      out.writeLong(r.seq());
      out.writeInt(r.duplicateId());
      writeResults(out, r.results());
    } else if (m instanceof Message.Ack a) {
      out.writeByte(ACK);
      out.writeInt(a.duplicateId());
      out.writeLong(a.epoch());
      out.writeLong(a.appliedSeq());
    } else if (m instanceof Message.Retransmit r) {
      out.writeByte(RETRANSMIT);
      out.writeInt(r.duplicateId());
      out.writeLong(r.epoch());
      out.writeLong(r.fromSeq());
      out.writeLong(r.toSeq());
    } else if (m instanceof Message.Read r) {
      out.writeByte(READ);
      out.writeLong(r.clientId());
      out.writeLong(r.requestId());
      out.writeByte(r.kind().code());
      writeString(out, r.path());
      out.writeLong(r.minSeq());
    } else if (m instanceof Message.ReadReply r) {
      out.writeByte(READ_REPLY);
      out.writeLong(r.clientId());
      out.writeLong(r.requestId());
      out.writeInt(r.duplicateId());
      out.writeLong(r.appliedSeq());
      out.writeInt(r.code().intValue());
      writeBytes(out, r.data());
      out.writeInt(r.version());
      out.writeInt(r.children().size());
      for (String child : r.children()) {
        writeString(out, child);
      }
    } else if (m instanceof Message.Status s) {
      out.writeByte(STATUS);
      out.writeInt(s.duplicateId());
      out.writeLong(s.epoch());
      out.writeLong(s.appliedSeq());
      out.writeByte(s.state().code());
    } else if (m instanceof Message.PlannedSlowness p) {
      out.writeByte(PLANNED_SLOWNESS);
      out.writeInt(p.duplicateId());
      out.writeLong(p.maxDurationMs());
    } else if (m instanceof Message.Error e) {
      out.writeByte(ERROR);
      out.writeInt(e.code().code());
      writeString(out, e.message());
      out.writeLong(e.requestId());
      out.writeLong(e.retryAfterMillis());
    } else if (m instanceof Message.Challenge c) {
      out.writeByte(CHALLENGE);
      writeBytes(out, c.nonce());
      writeString(out, c.server());
    } else if (m instanceof Message.Auth a) {
      out.writeByte(AUTH);
      writeString(out, a.principal());
      writeBytes(out, a.proof());
    } else if (m instanceof Message.TransferRequest t) {
      out.writeByte(TRANSFER_REQUEST);
      out.writeLong(t.transferId());
      out.writeInt(t.targetDuplicateId());
    } else if (m instanceof Message.Watch w) {
      out.writeByte(WATCH);
      out.writeLong(w.clientId());
      out.writeLong(w.watchId());
      out.writeByte(w.kind().code());
      writeString(out, w.path());
      out.writeLong(w.sinceSeq());
    } else if (m instanceof Message.Unwatch u) {
      out.writeByte(UNWATCH);
      out.writeLong(u.clientId());
      out.writeLong(u.watchId());
    } else if (m instanceof Message.WatchEvent e) {
      out.writeByte(WATCH_EVENT);
      out.writeLong(e.clientId());
      out.writeLong(e.watchId());
      out.writeInt(e.duplicateId());
      out.writeLong(e.seq());
      out.writeInt(e.changes().size());
      for (Message.WatchEvent.Change c : e.changes()) {
        out.writeByte(c.type().code());
        writeString(out, c.path());
      }
    } else if (m instanceof Message.TransferChunk c) {
      out.writeByte(TRANSFER_CHUNK);
      out.writeLong(c.transferId());
      out.writeInt(c.sourceDuplicateId());
      out.writeLong(c.epoch());
      out.writeLong(c.appliedSeq());
      out.writeLong(c.catchUpToSeq());
      out.writeInt(c.index());
      out.writeInt(c.chunkCount());
      out.writeInt(c.nodes().size());
      for (Message.TransferChunk.Node n : c.nodes()) {
        writeString(out, n.path());
        writeBytes(out, n.data());
        out.writeInt(n.version());
        out.writeInt(n.cversion());
      }
    } else {
      throw new IllegalStateException(
          "unhandled message " + m.getClass().getName()); // sealed: unreachable
    }
  }

  private static void writeOps(ByteBuf out, List<Op> ops) {
    out.writeInt(ops.size());
    for (Op op : ops) {
      if (op instanceof Op.Create c) {
        out.writeByte(OP_CREATE);
        writeString(out, c.path());
        out.writeByte(c.mode().toFlag());
        writeBytes(out, c.data());
      } else if (op instanceof Op.SetData s) {
        out.writeByte(OP_SET_DATA);
        writeString(out, s.path());
        writeBytes(out, s.data());
        out.writeInt(s.version());
      } else if (op instanceof Op.Delete d) {
        out.writeByte(OP_DELETE);
        writeString(out, d.path());
        out.writeInt(d.version());
      } else if (op instanceof Op.Check c) {
        out.writeByte(OP_CHECK);
        writeString(out, c.path());
        out.writeInt(c.version());
      } else {
        throw new IllegalStateException(
            "unhandled op " + op.getClass().getName()); // sealed: unreachable
      }
    }
  }

  private static void writeResults(ByteBuf out, List<OpResult> results) {
    out.writeInt(results.size());
    for (OpResult r : results) {
      if (r instanceof OpResult.Created c) {
        out.writeByte(RESULT_CREATED);
        writeString(out, c.path());
      } else if (r instanceof OpResult.DataSet d) {
        out.writeByte(RESULT_DATA_SET);
        out.writeInt(d.version());
      } else if (r instanceof OpResult.Deleted) {
        out.writeByte(RESULT_DELETED);
      } else if (r instanceof OpResult.Checked) {
        out.writeByte(RESULT_CHECKED);
      } else if (r instanceof OpResult.Failed f) {
        out.writeByte(RESULT_FAILED);
        out.writeInt(f.code().intValue());
      } else {
        throw new IllegalStateException(
            "unhandled result " + r.getClass().getName()); // sealed: unreachable
      }
    }
  }

  private static void writeString(ByteBuf out, String s) {
    int length = ByteBufUtil.utf8Bytes(s);
    out.writeInt(length);
    ByteBufUtil.reserveAndWriteUtf8(out, s, length);
  }

  private static void writeBytes(ByteBuf out, byte[] bytes) {
    out.writeInt(bytes.length);
    out.writeBytes(bytes);
  }

  // ---------------------------------------------------------------- decoding

  /**
   * Decodes one frame, {@code [version][type][body]} (the length prefix already stripped), reading
   * it entirely.
   *
   * <p>A request from a client (WRITE, READ, WATCH) whose header parses but whose ops, read kind or
   * path are invalid is <em>refused</em>: the WireException then carries an application code
   * ({@link ErrorCode#INVALID_PATH}, {@link ErrorCode#UNKNOWN_OP}, {@link ErrorCode#INVALID_OP},
   * {@link ErrorCode#TOO_LARGE}) and the request id, and the rest of the frame is not parsed (the
   * length prefix delimits it, so the next frame is still found). SEQUENCED and the other messages
   * come from servers only: any invalid field there is {@link ErrorCode#MALFORMED_FRAME}.
   *
   * @throws WireException with {@link ErrorCode#UNSUPPORTED_VERSION}, {@link
   *     ErrorCode#UNKNOWN_MESSAGE_TYPE} or {@link ErrorCode#MALFORMED_FRAME}, or a refusal as
   *     above; never anything else
   */
  public static Message decode(ByteBuf frame) {
    if (frame.readableBytes() < 2) {
      throw new WireException(
          ErrorCode.MALFORMED_FRAME,
          "frame of "
              + frame.readableBytes()
              + " bytes has no room for its version and type bytes");
    }
    int version = frame.readUnsignedByte();
    int type = frame.readUnsignedByte();
    if (version != WireSettings.PROTOCOL_VERSION) {
      if (type == ERROR) {
        Message.Error error = decodeForeignError(frame);
        if (error != null) {
          return error;
        }
      }
      throw new WireException(
          ErrorCode.UNSUPPORTED_VERSION,
          "protocol version "
              + version
              + " is not supported; this peer speaks version "
              + WireSettings.PROTOCOL_VERSION);
    }
    String name = typeName(type);
    FrameReader in = new FrameReader(frame, name);
    Message m;
    try {
      m =
          switch (type) {
            case HELLO ->
                new Message.Hello(
                    Role.fromCode(in.readUnsignedByte("role")),
                    in.readString("id", WireSettings.MAX_ID_BYTES),
                    in.readInt("protocolVersion"));
            case WRITE -> readWrite(in);
            case SEQUENCED ->
                new Message.Sequenced(
                    in.readLong("epoch"),
                    in.readLong("seq"),
                    in.readLong("clientId"),
                    in.readLong("requestId"),
                    readOps(in, name));
            case REPLY ->
                new Message.Reply(
                    in.readLong("clientId"),
                    in.readLong("requestId"),
                    in.readLong("seq"),
                    in.readInt("duplicateId"),
                    readResults(in, name));
            case ACK ->
                new Message.Ack(
                    in.readInt("duplicateId"), in.readLong("epoch"), in.readLong("appliedSeq"));
            case RETRANSMIT ->
                new Message.Retransmit(
                    in.readInt("duplicateId"),
                    in.readLong("epoch"),
                    in.readLong("fromSeq"),
                    in.readLong("toSeq"));
            case READ -> readRead(in);
            case READ_REPLY -> readReadReply(in);
            case STATUS ->
                new Message.Status(
                    in.readInt("duplicateId"),
                    in.readLong("epoch"),
                    in.readLong("appliedSeq"),
                    DuplicateState.fromCode(in.readUnsignedByte("state")));
            case ERROR -> readError(in);
            case PLANNED_SLOWNESS ->
                new Message.PlannedSlowness(
                    in.readInt("duplicateId"), in.readLong("maxDurationMs"));
            case CHALLENGE ->
                new Message.Challenge(
                    in.readBytes("nonce", WireSettings.NONCE_BYTES),
                    in.readString("server", WireSettings.MAX_ID_BYTES));
            case AUTH ->
                new Message.Auth(
                    in.readString("principal", WireSettings.MAX_PRINCIPAL_BYTES),
                    in.readBytes("proof", WireSettings.PROOF_BYTES));
            case TRANSFER_REQUEST ->
                new Message.TransferRequest(
                    in.readLong("transferId"), in.readInt("targetDuplicateId"));
            case TRANSFER_CHUNK -> readTransferChunk(in);
            case WATCH -> readWatch(in);
            case UNWATCH -> new Message.Unwatch(in.readLong("clientId"), in.readLong("watchId"));
            case WATCH_EVENT -> readWatchEvent(in);
            default ->
                throw new WireException(
                    ErrorCode.UNKNOWN_MESSAGE_TYPE,
                    "unknown message type " + type + " (protocol version " + version + ")");
          };
    } catch (IllegalArgumentException e) {
      throw new WireException(ErrorCode.MALFORMED_FRAME, name + ": " + e.getMessage(), e);
    }
    in.finish();
    return m;
  }

  /**
   * The frozen prefix {@code [int code][string message]} of an ERROR frame from a peer of another
   * version, or null if it does not parse.
   */
  private static Message.Error decodeForeignError(ByteBuf frame) {
    FrameReader in = new FrameReader(frame, "ERROR");
    try {
      ErrorCode code = ErrorCode.fromCode(in.readInt("code"));
      String message = in.readString("message", WireSettings.MAX_ERROR_MESSAGE_BYTES);
      frame.skipBytes(frame.readableBytes()); // fields a later version added
      return Message.Error.of(code, message);
    } catch (WireException | IllegalArgumentException e) {
      return null;
    }
  }

  /** TRANSFER_CHUNK: from servers only, so anything invalid is malformed. */
  private static Message.TransferChunk readTransferChunk(FrameReader in) {
    long transferId = in.readLong("transferId");
    int source = in.readInt("sourceDuplicateId");
    long epoch = in.readLong("epoch");
    long appliedSeq = in.readLong("appliedSeq");
    long catchUpToSeq = in.readLong("catchUpToSeq");
    int index = in.readInt("index");
    int chunkCount = in.readInt("chunkCount");
    int count =
        in.readCount("nodes", MIN_TRANSFER_NODE_BYTES, WireSettings.MAX_TRANSFER_NODES_PER_CHUNK);
    List<Message.TransferChunk.Node> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      nodes.add(
          new Message.TransferChunk.Node(
              in.readString("path", Integer.MAX_VALUE),
              in.readBytes("data", WireSettings.MAX_DATA_BYTES),
              in.readInt("version"),
              in.readInt("cversion")));
    }
    return new Message.TransferChunk(
        transferId, source, epoch, appliedSeq, catchUpToSeq, index, chunkCount, nodes);
  }

  /**
   * The ops of a SEQUENCED: from the repeater, which sequences only valid writes, so anything
   * invalid is malformed.
   */
  private static List<Op> readOps(FrameReader in, String name) {
    int count = in.readCount("ops", MIN_OP_BYTES, WireSettings.MAX_OPS_PER_MESSAGE);
    List<Op> ops = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        ops.add(readOp(in, Refusal.NONE));
      } catch (IllegalArgumentException e) {
        throw new WireException(
            ErrorCode.MALFORMED_FRAME, name + ": ops[" + i + "]: " + e.getMessage(), e);
      }
    }
    return ops;
  }

  /**
   * WRITE: {@code clientId}, {@code requestId}, then ops that are refused one by one (see {@link
   * #decode}). An invalid id is malformed: a refusal must name a request.
   */
  private static Message.Write readWrite(FrameReader in) {
    long clientId = Checks.atLeast(in.readLong("clientId"), 0, "clientId");
    long requestId = Checks.atLeast(in.readLong("requestId"), 0, "requestId");
    Refusal refusal = Refusal.of("WRITE", requestId);
    int count = in.readCount("ops", MIN_OP_BYTES, Integer.MAX_VALUE);
    if (count == 0) {
      throw refusal.of(ErrorCode.INVALID_OP, "ops: a write needs at least one op");
    }
    if (count > WireSettings.MAX_OPS_PER_MESSAGE) {
      throw refusal.of(
          ErrorCode.TOO_LARGE,
          "ops: " + count + " ops exceed the limit of " + WireSettings.MAX_OPS_PER_MESSAGE);
    }
    List<Op> ops = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        ops.add(readOp(in, refusal.at("ops[" + i + "]")));
      } catch (IllegalArgumentException e) {
        throw new WireException(
            ErrorCode.MALFORMED_FRAME, "WRITE: ops[" + i + "]: " + e.getMessage(), e);
      }
    }
    return new Message.Write(clientId, requestId, ops);
  }

  /**
   * READ: an unknown kind or an invalid path is refused (see {@link #decode}) once the whole body
   * has been read, since its layout does not depend on them.
   */
  private static Message.Read readRead(FrameReader in) {
    long clientId = Checks.atLeast(in.readLong("clientId"), 0, "clientId");
    long requestId = Checks.atLeast(in.readLong("requestId"), 0, "requestId");
    int kind = in.readUnsignedByte("kind");
    String path = in.readString("path", Integer.MAX_VALUE);
    long minSeq = Checks.atLeast(in.readLong("minSeq"), 0, "minSeq");
    in.finish();
    Refusal refusal = Refusal.of("READ", requestId);
    ReadKind readKind;
    try {
      readKind = ReadKind.fromCode(kind);
    } catch (IllegalArgumentException e) {
      throw refusal.of(ErrorCode.UNKNOWN_OP, "kind: unknown read kind " + kind);
    }
    refusal.checkPath(path, false);
    return new Message.Read(clientId, requestId, readKind, path, minSeq);
  }

  /**
   * WATCH: like READ, an unknown kind or an invalid path is refused (see {@link #decode}), with the
   * watch id as the request id, once the whole body has been read.
   */
  private static Message.Watch readWatch(FrameReader in) {
    long clientId = Checks.atLeast(in.readLong("clientId"), 0, "clientId");
    long watchId = Checks.atLeast(in.readLong("watchId"), 0, "watchId");
    int kind = in.readUnsignedByte("kind");
    String path = in.readString("path", Integer.MAX_VALUE);
    long sinceSeq = Checks.atLeast(in.readLong("sinceSeq"), 0, "sinceSeq");
    in.finish();
    Refusal refusal = Refusal.of("WATCH", watchId);
    WatchKind watchKind;
    try {
      watchKind = WatchKind.fromCode(kind);
    } catch (IllegalArgumentException e) {
      throw refusal.of(ErrorCode.UNKNOWN_OP, "kind: unknown watch kind " + kind);
    }
    refusal.checkPath(path, false);
    return new Message.Watch(clientId, watchId, watchKind, path, sinceSeq);
  }

  /** WATCH_EVENT: from plugins only, so anything invalid is malformed. */
  private static Message.WatchEvent readWatchEvent(FrameReader in) {
    long clientId = in.readLong("clientId");
    long watchId = in.readLong("watchId");
    int duplicateId = in.readInt("duplicateId");
    long seq = in.readLong("seq");
    int count = in.readCount("changes", MIN_CHANGE_BYTES, WireSettings.MAX_WATCH_CHANGES);
    List<Message.WatchEvent.Change> changes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      WatchEventType type = WatchEventType.fromCode(in.readUnsignedByte("change type"));
      changes.add(new Message.WatchEvent.Change(type, in.readString("path", Integer.MAX_VALUE)));
    }
    return new Message.WatchEvent(clientId, watchId, duplicateId, seq, changes);
  }

  /**
   * Where an invalid field of a request goes: a refusal of request {@code requestId} ({@code
   * message} names the message type and position), or, for {@link #NONE}, an
   * IllegalArgumentException the caller makes malformed.
   */
  private record Refusal(String context, long requestId) {
    static final Refusal NONE = new Refusal(null, Message.Error.NO_REQUEST);

    /** Refusals of {@code message} (WRITE, READ) {@code requestId}. */
    static Refusal of(String message, long requestId) {
      return new Refusal(message + " " + requestId, requestId);
    }

    /** The same refusals, naming a position in the message ({@code ops[2]}). */
    Refusal at(String position) {
      return context == null ? this : new Refusal(context + ": " + position, requestId);
    }

    RuntimeException of(ErrorCode code, String detail) {
      if (context == null) {
        return new IllegalArgumentException(detail);
      }
      return new WireException(code, requestId, context + ": " + detail, null);
    }

    void checkPath(String path, boolean sequential) {
      try {
        Checks.checkPath(path, "path", sequential);
      } catch (IllegalArgumentException e) {
        throw of(ErrorCode.INVALID_PATH, e.getMessage());
      }
    }

    void checkVersion(int version) {
      if (version < -1) {
        throw of(ErrorCode.INVALID_OP, "version: must be -1 (any version) or >= 0, was " + version);
      }
    }
  }

  /**
   * One op. Structure first (a lying length is malformed whatever {@code refusal} says), then the
   * values: an invalid one throws {@code refusal.of(...)}.
   */
  private static Op readOp(FrameReader in, Refusal refusal) {
    int type = in.readUnsignedByte("op type");
    if (type < OP_CREATE || type > OP_CHECK) {
      // The op's layout is unknown: nothing after the type can be parsed.
      throw refusal.of(ErrorCode.UNKNOWN_OP, "unknown op type " + type);
    }
    String path = in.readString("op path", Integer.MAX_VALUE);
    switch (type) {
      case OP_CREATE -> {
        int flag = in.readUnsignedByte("op mode");
        byte[] data = readData(in, refusal);
        // Not fromFlag(int): it logs at ERROR for every bad flag, which would let any peer flood
        // the logs.
        CreateMode mode = CreateMode.fromFlag(flag, null);
        if (mode == null) {
          throw refusal.of(ErrorCode.INVALID_OP, "mode: unknown create mode flag " + flag);
        }
        if (mode != CreateMode.PERSISTENT && mode != CreateMode.PERSISTENT_SEQUENTIAL) {
          throw refusal.of(
              ErrorCode.INVALID_OP,
              "mode: "
                  + mode
                  + " is not replicated (sessions, containers and"
                  + " TTLs are per ensemble); use PERSISTENT or PERSISTENT_SEQUENTIAL");
        }
        refusal.checkPath(path, mode.isSequential());
        return new Op.Create(path, data, mode);
      }
      case OP_SET_DATA -> {
        byte[] data = readData(in, refusal);
        int version = in.readInt("op version");
        refusal.checkPath(path, false);
        refusal.checkVersion(version);
        return new Op.SetData(path, data, version);
      }
      case OP_DELETE -> {
        int version = in.readInt("op version");
        refusal.checkPath(path, false);
        refusal.checkVersion(version);
        return new Op.Delete(path, version);
      }
      default -> {
        int version = in.readInt("op version");
        refusal.checkPath(path, false);
        refusal.checkVersion(version);
        return new Op.Check(path, version);
      }
    }
  }

  /**
   * An op's data: a length beyond the frame is malformed, one within it but over the limit is too
   * large.
   */
  private static byte[] readData(FrameReader in, Refusal refusal) {
    int length = in.readLength("op data", Integer.MAX_VALUE);
    if (length > WireSettings.MAX_DATA_BYTES) {
      throw refusal.of(
          ErrorCode.TOO_LARGE,
          "data: " + length + " bytes exceed the limit of " + WireSettings.MAX_DATA_BYTES);
    }
    return in.readBytes(length);
  }

  private static List<OpResult> readResults(FrameReader in, String name) {
    int count = in.readCount("results", MIN_RESULT_BYTES, WireSettings.MAX_OPS_PER_MESSAGE);
    List<OpResult> results = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      try {
        int type = in.readUnsignedByte("result type");
        switch (type) {
          case RESULT_CREATED ->
              results.add(new OpResult.Created(in.readString("result path", Integer.MAX_VALUE)));
          case RESULT_DATA_SET -> results.add(new OpResult.DataSet(in.readInt("result version")));
          case RESULT_DELETED -> results.add(new OpResult.Deleted());
          case RESULT_CHECKED -> results.add(new OpResult.Checked());
          case RESULT_FAILED ->
              results.add(new OpResult.Failed(keeperCode(in.readInt("result code"))));
          default -> throw new IllegalArgumentException("unknown result type " + type);
        }
      } catch (IllegalArgumentException e) {
        throw new WireException(
            ErrorCode.MALFORMED_FRAME, name + ": results[" + i + "]: " + e.getMessage(), e);
      }
    }
    return results;
  }

  /**
   * ERROR: the frozen prefix {@code [code][message]}, then this version's {@code
   * [requestId][retryAfterMillis]}.
   */
  private static Message.Error readError(FrameReader in) {
    ErrorCode code = ErrorCode.fromCode(in.readInt("code"));
    String message = in.readString("message", WireSettings.MAX_ERROR_MESSAGE_BYTES);
    long requestId = in.readLong("requestId");
    long retryAfterMillis = in.readLong("retryAfterMillis");
    return new Message.Error(code, requestId, retryAfterMillis, message);
  }

  private static Message.ReadReply readReadReply(FrameReader in) {
    long clientId = in.readLong("clientId");
    long requestId = in.readLong("requestId");
    int duplicateId = in.readInt("duplicateId");
    long appliedSeq = in.readLong("appliedSeq");
    KeeperException.Code code = keeperCode(in.readInt("code"));
    byte[] data = in.readBytes("data", WireSettings.MAX_DATA_BYTES);
    int version = in.readInt("version");
    int count = in.readCount("children", MIN_CHILD_BYTES, Integer.MAX_VALUE);
    List<String> children = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      children.add(in.readString("child", Integer.MAX_VALUE));
    }
    return new Message.ReadReply(
        clientId, requestId, duplicateId, appliedSeq, code, data, version, children);
  }

  private static KeeperException.Code keeperCode(int code) {
    KeeperException.Code c = KeeperException.Code.get(code);
    if (c == null) {
      throw new IllegalArgumentException("code: unknown KeeperException code " + code);
    }
    return c;
  }
}
