package io.zoolander.it.jmh;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.internal.Codec;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.KeeperException;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of the wire codec ({@code io.zoolander.wire.internal.Codec}) for the messages on the hot
 * paths: a client's WRITE (one setData), the SEQUENCED the repeater fans out, a READ, the REPLY to
 * a write and the READ_REPLY to a read. Encoding writes {@code [version][type][body]} into a reused
 * pooled direct buffer (no allocation of its own, as in the pipeline's encoder minus its buffer
 * allocation); decoding reads the same bytes back into a new {@link Message}, copying the data,
 * with every field validated, as the pipeline's decoder does. Framing and sockets are not included.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBenchmark {
  private static final String PATH = "/zoolander/app/config/node-0000000042"; // 36 characters

  /** Which message. */
  @Param({"WRITE", "SEQUENCED", "READ", "REPLY", "READ_REPLY"})
  public String message;

  /**
   * Size of the znode data in WRITE, SEQUENCED and READ_REPLY: ZooKeeper data is typically well
   * under 1 KiB.
   */
  @Param("1024")
  public int dataBytes;

  private Message value;
  private ByteBuf out;
  private ByteBuf encoded;

  @Setup(Level.Trial)
  public void setUp() {
    byte[] data = new byte[dataBytes];
    new SplittableRandom(42).nextBytes(data);
    Message.Write write = new Message.Write(7, 123_456, List.of(Op.setData(PATH, data, -1)));
    value =
        switch (message) {
          case "WRITE" -> write;
          case "SEQUENCED" -> Message.Sequenced.of(3, 9_876_543, write);
          case "READ" -> new Message.Read(7, 123_457, ReadKind.GET_DATA, PATH, 9_876_543);
          case "REPLY" ->
              new Message.Reply(7, 123_456, 9_876_543, 2, List.of(new OpResult.DataSet(17)));
          case "READ_REPLY" ->
              new Message.ReadReply(
                  7, 123_457, 2, 9_876_543, KeeperException.Code.OK, data, 17, List.of());
          default -> throw new IllegalArgumentException("message: unknown " + message);
        };
    out = PooledByteBufAllocator.DEFAULT.directBuffer(dataBytes + 256);
    encoded = PooledByteBufAllocator.DEFAULT.directBuffer(dataBytes + 256);
    Codec.encode(value, encoded);
    // Measure a faithful round trip, not a failure path.
    Message back = Codec.decode(encoded.duplicate());
    if (!back.equals(value)) {
      throw new IllegalStateException("codec round trip changed " + value + " into " + back);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    out.release();
    encoded.release();
  }

  @Benchmark
  public ByteBuf encode() {
    out.clear();
    Codec.encode(value, out);
    return out;
  }

  @Benchmark
  public Message decode() {
    encoded.readerIndex(0);
    return Codec.decode(encoded);
  }
}
