package io.zoolander.it;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zoolander.wire.Message;
import io.zoolander.wire.Role;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.Codec;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A TCP connection driven by hand, to send what no Zoolander peer would: raw bytes, frames built
 * field by field, and well-formed messages at the wrong time. Reads frames back with the real
 * codec.
 */
final class RawConnection implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final OutputStream out;

  private RawConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new DataInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects, with reads timing out after {@code readTimeout}. */
  static RawConnection open(InetSocketAddress address, Duration readTimeout) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.setSoTimeout(Math.toIntExact(readTimeout.toMillis()));
      socket.connect(address, 5_000);
      return new RawConnection(socket);
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    }
  }

  /** Connects and says HELLO as client {@code clientId}. */
  static RawConnection client(InetSocketAddress address, long clientId) throws IOException {
    RawConnection c = open(address, Duration.ofSeconds(10));
    c.send(Message.Hello.of(Role.CLIENT, Long.toString(clientId)));
    return c;
  }

  RawConnection send(Message m) throws IOException {
    return send(frame(m));
  }

  RawConnection send(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
    return this;
  }

  /** The next frame, decoded. */
  Message read() throws IOException {
    int length = in.readInt();
    if (length < 2 || length > WireSettings.DEFAULT_MAX_FRAME_BYTES) {
      throw new IOException("the peer sent a frame length of " + length);
    }
    byte[] body = new byte[length];
    in.readFully(body);
    return Codec.decode(Unpooled.wrappedBuffer(body));
  }

  /** The next frame that is not a STATUS (a plugin answers HELLO with one). */
  Message readSkippingStatus() throws IOException {
    Message m = read();
    while (m instanceof Message.Status) {
      m = read();
    }
    return m;
  }

  /**
   * Whether the peer closes its side (end of stream) within the read timeout, discarding what
   * arrives before.
   */
  boolean readsEndOfStream() throws IOException {
    try {
      while (in.read() >= 0) {
        // discard
      }
      return true;
    } catch (SocketTimeoutException e) {
      return false;
    }
  }

  static byte[] concat(byte[]... parts) {
    ByteBuf all = Unpooled.buffer();
    for (byte[] p : parts) {
      all.writeBytes(p);
    }
    return bytes(all);
  }

  /** Closes at once with a reset (SO_LINGER 0), as a crashed peer might. */
  void reset() throws IOException {
    socket.setSoLinger(true, 0);
    socket.close();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  /** The frame of {@code m}, length prefix included. */
  static byte[] frame(Message m) {
    ByteBuf body = Unpooled.buffer();
    Codec.encode(m, body);
    return bytes(Unpooled.buffer().writeInt(body.readableBytes()).writeBytes(body));
  }

  static byte[] bytes(ByteBuf b) {
    byte[] out = new byte[b.readableBytes()];
    b.readBytes(out);
    return out;
  }

  /** Builds a frame field by field, to write what a correct encoder never would. */
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
      return bytes(s.getBytes(StandardCharsets.UTF_8));
    }

    Raw bytes(byte[] b) {
      body.writeInt(b.length).writeBytes(b);
      return this;
    }

    /** The frame with a correct length prefix. */
    byte[] build() {
      return RawConnection.bytes(
          Unpooled.buffer().writeInt(body.readableBytes()).writeBytes(body.duplicate()));
    }
  }
}
