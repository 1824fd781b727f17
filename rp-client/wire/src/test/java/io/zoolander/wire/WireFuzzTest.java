package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.encode;
import static io.zoolander.wire.WireTestSupport.filled;
import static io.zoolander.wire.WireTestSupport.sampleMessages;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.zoolander.wire.WireTestSupport.ExceptionRecorder;
import io.zoolander.wire.internal.Codec;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzz of the frame decoder and every message parser: by default a million inputs through
 * the real pipeline ({@link WirePipeline} on an {@link EmbeddedChannel}), built from valid frames
 * of every message type by bit flips, byte changes, truncation, insertion, deletion, lying and huge
 * length prefixes, lying inner lengths and counts, unknown types and versions, valid headers with
 * garbage bodies, several frames in one read and reads split at random points, plus pure random
 * bytes.
 *
 * <p>For every input it checks that
 *
 * <ul>
 *   <li>nothing escapes the pipeline: every message delivered is valid (it re-encodes and decodes
 *       to itself); every exception that reaches the application is a {@link WireException} with a
 *       protocol code, at most one per connection, and then exactly that ERROR was written last and
 *       the channel is closed; otherwise the channel is open and the only thing written is refusals
 *       of requests (application codes naming a request id);
 *   <li>it does not hang: a watchdog fails the test if one input takes more than {@link
 *       #HANG_MILLIS} (a hang, not a speed check: an input normally takes microseconds);
 *   <li>memory stays bounded: the bytes the decoding thread allocates for one input (measured by
 *       the JVM, {@code com.sun.management.ThreadMXBean}) stay under {@link #allocationBound(int)},
 *       linear in the input's size, so no declared length or count (up to 2^31 - 1 here, against a
 *       16 KiB frame limit) drives an allocation; and every buffer the pipeline took from the
 *       channel's allocator is released (the allocator's used memory returns to 0).
 * </ul>
 *
 * <p>{@code -Dwire.fuzz.inputs=N} and {@code -Dwire.fuzz.seed=S} change the count and the seed; a
 * failure prints the seed, the worker and the input in hex.
 */
class WireFuzzTest {
  /** Small, so that mutated lengths often exceed it. */
  static final int MAX_FRAME = 16 * 1024;

  static final long HANG_MILLIS = 10_000;
  static final int[] INTERESTING_INTS = {
    0,
    1,
    -1,
    2,
    5,
    8,
    9,
    10,
    127,
    128,
    255,
    256,
    1000,
    1001,
    MAX_FRAME - 6,
    MAX_FRAME - 4,
    MAX_FRAME - 3,
    MAX_FRAME,
    WireSettings.MAX_DATA_BYTES,
    WireSettings.MAX_DATA_BYTES + 1,
    1 << 24,
    Integer.MAX_VALUE - 8,
    Integer.MAX_VALUE,
    Integer.MIN_VALUE
  };
  static final Set<ErrorCode> REFUSAL_CODES =
      EnumSet.of(
          ErrorCode.INVALID_PATH, ErrorCode.UNKNOWN_OP, ErrorCode.INVALID_OP, ErrorCode.TOO_LARGE);

  /** What each input is made of; the counts are printed. */
  enum Kind {
    MUTATED,
    SEVERAL_FRAMES,
    GARBAGE_BODY,
    HUGE_LENGTH,
    PURE_RANDOM
  }

  /**
   * The most the pipeline may allocate on its thread for an input of {@code inputBytes}: linear in
   * the input, never driven by a length or count it declares. 64 KiB for a small input's fixed
   * costs (the ERROR answer and its message, an exception and its stack trace), plus 64 bytes per
   * input byte: decoding turns every element into objects, and the densest elements are the
   * smallest ones on the wire (a 9-byte DELETE op becomes a record, a path string, the char[] that
   * ZooKeeper's path check copies and list slots, about 340 bytes; a 1-byte DELETED result a record
   * and two list slots). A declared length or count that drove an allocation would be checked
   * against 2^31 - 1, 2^24, 1 MiB + 1 or a random value between the frame limit and 2^31, and
   * exceed this by far.
   */
  static long allocationBound(int inputBytes) {
    return 64 * 1024 + 64L * inputBytes;
  }

  @Test
  void aMillionInputsGetOnlyDefinedOutcomes() throws Exception {
    long seed = Long.getLong("wire.fuzz.seed", 0x200_1A2D_E4L);
    int inputs = Integer.getInteger("wire.fuzz.inputs", 1_000_000);
    int workers = Math.max(1, Math.min(2, Runtime.getRuntime().availableProcessors()));
    List<byte[]> corpus = corpus();

    List<Worker> all = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      int share = inputs / workers + (w < inputs % workers ? 1 : 0);
      all.add(new Worker(w, seed + w, share, corpus));
    }
    long start = System.nanoTime();
    all.forEach(Worker::start);
    watch(all);
    long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    Totals t = new Totals();
    for (Worker w : all) {
      if (w.failure.get() != null) {
        throw new AssertionError(
            "worker " + w.index + " (seed " + w.seed + ") failed", w.failure.get());
      }
      t.add(w.totals);
    }
    System.out.printf(
        "fuzz: %d inputs (%s) in %d ms on %d threads (%d ms of CPU), %d bytes; %d frames delivered;"
            + " %d inputs waiting for more bytes; protocol errors %s; refusals %s; slowest input %.3f ms; largest"
            + " allocation %d bytes for %d input bytes (bound %d); largest buffer %d bytes%n",
        t.inputs,
        t.kinds,
        elapsedMs,
        workers,
        TimeUnit.NANOSECONDS.toMillis(t.cpuNanos),
        t.bytes,
        t.delivered,
        t.waiting,
        t.errors,
        t.refusals,
        t.slowestNanos / 1e6,
        t.worstAllocation,
        t.worstAllocationInput,
        allocationBound(t.worstAllocationInput),
        t.largestBuffer);

    assertThat(t.inputs).isEqualTo(inputs);
    if (inputs
        >= 100_000) { // the generator reaches every outcome; not worth asserting on a short run
      assertThat(t.errors)
          .as("protocol errors reached")
          .containsKeys(
              ErrorCode.FRAME_TOO_LARGE,
              ErrorCode.MALFORMED_FRAME,
              ErrorCode.UNKNOWN_MESSAGE_TYPE,
              ErrorCode.UNSUPPORTED_VERSION);
      assertThat(t.refusals)
          .as("refusals reached")
          .containsKeys(REFUSAL_CODES.toArray(ErrorCode[]::new));
      assertThat(t.delivered).as("valid frames survive some mutations").isPositive();
    }
  }

  /** Waits for the workers, failing if one input runs longer than {@link #HANG_MILLIS}. */
  private static void watch(List<Worker> workers) throws InterruptedException {
    for (Worker w : workers) {
      while (w.isAlive()) {
        w.join(200);
        for (Worker other : workers) {
          long started = other.inputStartedNanos;
          if (other.isAlive()
              && started != 0
              && System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(HANG_MILLIS)) {
            byte[] input = other.current;
            throw new AssertionError(
                "worker "
                    + other.index
                    + " (seed "
                    + other.seed
                    + ") hangs on input "
                    + other.totals.inputs
                    + ": "
                    + HexFormat.of().formatHex(input, 0, Math.min(input.length, 256)));
          }
        }
      }
    }
  }

  /**
   * A valid frame of every message type, op, result and enum value, and a few medium-sized ones.
   */
  static List<byte[]> corpus() {
    List<Message> messages = new ArrayList<>(sampleMessages());
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ops.add(Op.setData("/n/" + i, filled(i * 7, i), i - 1));
    }
    messages.add(new Message.Write(3, 4, ops));
    messages.add(new Message.Sequenced(5, 6, 3, 4, ops));
    messages.add(
        new Message.ReadReply(
            1,
            2,
            3,
            4,
            Code.OK,
            filled(3000, 5),
            7,
            List.of("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")));
    messages.add(new Message.Write(7, 8, List.of(Op.create("/big", filled(8000, 3)))));
    List<Op> most = new ArrayList<>(); // a count mutated to 1001 fits the frame: TOO_LARGE
    for (int i = 0; i < WireSettings.MAX_OPS_PER_MESSAGE; i++) {
      most.add(Op.delete("/d", -1));
    }
    messages.add(new Message.Write(9, 10, most));
    List<byte[]> frames = new ArrayList<>(messages.stream().map(m -> encode(m)).toList());
    // Just over a limit, which a valid message cannot be: a WRITE of MAX_OPS_PER_MESSAGE + 1 ops.
    byte[] overLimit =
        WireTestSupport.concat(
            encode(new Message.Write(9, 10, most)),
            new byte[] {3, 0, 0, 0, 2, '/', 'd', -1, -1, -1, -1}); // one more DELETE("/d", -1)
    ByteBuf patch = Unpooled.wrappedBuffer(overLimit);
    patch.setInt(0, overLimit.length - 4);
    patch.setInt(
        4 + 2 + 16, most.size() + 1); // the count after prefix, version, type, clientId, requestId
    frames.add(overLimit);
    return frames;
  }

  /**
   * Heap buffers only (also for {@code ioBuffer}, which would be direct), counting the bytes of the
   * buffers alive and the largest array any buffer had, so leaks and large buffers show. One per
   * worker thread.
   */
  static final class CountingAllocator extends AbstractByteBufAllocator {
    long liveBytes;
    int largestArray;

    CountingAllocator() {
      super(false);
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
      return new UnpooledHeapByteBuf(this, initialCapacity, maxCapacity) {
        @Override
        protected byte[] allocateArray(int length) {
          liveBytes += length;
          largestArray = Math.max(largestArray, length);
          return new byte[length];
        }

        @Override
        protected void freeArray(byte[] array) {
          liveBytes -= array.length;
        }
      };
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
      return newHeapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
      return false;
    }
  }

  static final class Totals {
    int inputs;
    long bytes;
    long delivered;
    int waiting;
    final Map<Kind, Integer> kinds = new EnumMap<>(Kind.class);
    final Map<ErrorCode, Integer> errors = new EnumMap<>(ErrorCode.class);
    final Map<ErrorCode, Integer> refusals = new EnumMap<>(ErrorCode.class);
    long slowestNanos;
    long worstAllocation;
    int worstAllocationInput;
    int largestBuffer;
    long cpuNanos;

    void add(Totals o) {
      inputs += o.inputs;
      bytes += o.bytes;
      delivered += o.delivered;
      waiting += o.waiting;
      o.kinds.forEach((k, v) -> kinds.merge(k, v, Integer::sum));
      o.errors.forEach((k, v) -> errors.merge(k, v, Integer::sum));
      o.refusals.forEach((k, v) -> refusals.merge(k, v, Integer::sum));
      slowestNanos = Math.max(slowestNanos, o.slowestNanos);
      largestBuffer = Math.max(largestBuffer, o.largestBuffer);
      cpuNanos += o.cpuNanos;
      if (o.worstAllocation > worstAllocation) {
        worstAllocation = o.worstAllocation;
        worstAllocationInput = o.worstAllocationInput;
      }
    }
  }

  /** Runs its share of the inputs on its own thread, with its own random stream. */
  static final class Worker extends Thread {
    final int index;
    final long seed;
    final int count;
    final List<byte[]> corpus;
    final Totals totals = new Totals();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final CountingAllocator alloc = new CountingAllocator();
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    volatile long inputStartedNanos;
    volatile byte[] current = new byte[0];

    Worker(int index, long seed, int count, List<byte[]> corpus) {
      super("wire-fuzz-" + index);
      setDaemon(true); // a hung worker must not keep the test JVM alive
      this.index = index;
      this.seed = seed;
      this.count = count;
      this.corpus = corpus;
    }

    @Override
    public void run() {
      SplittableRandom random = new SplittableRandom(seed);
      try {
        for (int i = 0; i < count; i++) {
          Kind kind = pickKind(random);
          byte[] input = generate(kind, random);
          current = input;
          inputStartedNanos = System.nanoTime();
          runOne(input, random);
          long took = System.nanoTime() - inputStartedNanos;
          inputStartedNanos = 0;
          totals.slowestNanos = Math.max(totals.slowestNanos, took);
          totals.kinds.merge(kind, 1, Integer::sum);
          totals.inputs++;
          totals.bytes += input.length;
        }
        totals.cpuNanos = threads.getCurrentThreadCpuTime();
      } catch (Throwable t) {
        failure.set(
            new AssertionError(
                "input "
                    + totals.inputs
                    + ": "
                    + HexFormat.of().formatHex(current, 0, Math.min(current.length, 256)),
                t));
      }
    }

    /** What the pipeline did with one input. */
    private record Outcome(
        List<Message> delivered,
        List<Message> sent,
        List<Throwable> exceptions,
        boolean open,
        long allocatedBytes,
        int largestBuffer) {}

    private void runOne(byte[] input, SplittableRandom random) {
      // Deliver as the network might: in one read, or split at up to two random points.
      int splits = input.length < 2 ? 0 : random.nextInt(3);
      int[] cuts = new int[splits + 2];
      cuts[splits + 1] = input.length;
      for (int s = 1; s <= splits; s++) {
        cuts[s] = 1 + random.nextInt(input.length - 1);
      }
      Arrays.sort(cuts, 1, splits + 1);

      Outcome outcome = feed(input, cuts);
      long allocated = outcome.allocatedBytes();
      if (allocated > allocationBound(input.length)) {
        // The first use of a code path loads classes and links lambdas, allocating once: the bound
        // must hold again.
        allocated = feed(input, cuts).allocatedBytes();
      }
      // Plain checks: AssertJ's per-call objects would cost more than the decoding they check.
      check(
          allocated <= allocationBound(input.length),
          "allocated %d bytes decoding %d input bytes, over %d",
          allocated,
          input.length,
          allocationBound(input.length));
      if (allocated > totals.worstAllocation) {
        totals.worstAllocation = allocated;
        totals.worstAllocationInput = input.length;
      }
      // A buffer holds at most what was received (the frame decoder's cumulation) or one outbound
      // frame; Netty grows a
      // buffer by doubling (below 4 MiB), so its capacity is at most the next power of two of that.
      int bufferBound = nextPowerOfTwo(input.length + MAX_FRAME);
      check(
          outcome.largestBuffer() <= bufferBound,
          "a buffer of %d bytes for %d input bytes, over %d",
          outcome.largestBuffer(),
          input.length,
          bufferBound);
      totals.largestBuffer = Math.max(totals.largestBuffer, outcome.largestBuffer());

      List<Message> sent = outcome.sent();
      List<Message> refusals = sent;
      List<Throwable> exceptions = outcome.exceptions();
      check(exceptions.size() <= 1, "%d exceptions fired: %s", exceptions.size(), exceptions);
      if (exceptions.isEmpty()) {
        check(outcome.open(), "channel closed without a protocol error; sent %s", sent);
        if (outcome.delivered().isEmpty() && sent.isEmpty()) {
          totals.waiting++;
        }
      } else {
        Throwable t = exceptions.get(0);
        if (!(t instanceof WireException wire) || !wire.code().closesConnection()) {
          throw new AssertionError("not a protocol error: " + t, t);
        }
        ErrorCode code = wire.code();
        check(!outcome.open(), "channel open after %s", code);
        check(
            !sent.isEmpty()
                && sent.get(sent.size() - 1).equals(Message.Error.of(code, t.getMessage())),
            "the last frame sent is not the ERROR for %s: %s",
            t,
            sent);
        refusals = sent.subList(0, sent.size() - 1);
        totals.errors.merge(code, 1, Integer::sum);
      }
      for (Message m : refusals) {
        check(
            m instanceof Message.Error e && REFUSAL_CODES.contains(e.code()) && e.requestId() >= 0,
            "not a refusal naming a request: %s",
            m);
        totals.refusals.merge(((Message.Error) m).code(), 1, Integer::sum);
      }
      for (Message m : outcome.delivered()) {
        ByteBuf again = Unpooled.buffer();
        Codec.encode(m, again);
        Message decoded = Codec.decode(again);
        check(decoded.equals(m), "delivered %s re-decodes as %s", m, decoded);
        totals.delivered++;
      }
    }

    private static int nextPowerOfTwo(int n) {
      return n <= 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
    }

    @FormatMethod
    private static void check(boolean condition, @FormatString String format, Object... args) {
      if (!condition) {
        throw new AssertionError(String.format(format, args));
      }
    }

    /**
     * Feeds {@code input}, cut at {@code cuts}, to a fresh pipeline, and releases everything after.
     */
    private Outcome feed(byte[] input, int[] cuts) {
      EmbeddedChannel channel = new EmbeddedChannel();
      channel.config().setAllocator(alloc);
      WirePipeline.install(channel.pipeline(), MAX_FRAME);
      ExceptionRecorder recorder = new ExceptionRecorder();
      channel.pipeline().addLast(recorder);
      List<Message> delivered = new ArrayList<>();
      alloc.largestArray = 0;
      long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
      for (int s = 0; s + 1 < cuts.length && channel.isOpen(); s++) {
        if (cuts[s + 1] > cuts[s]) { // Netty never delivers an empty read
          ByteBuf in =
              alloc
                  .heapBuffer(cuts[s + 1] - cuts[s])
                  .writeBytes(input, cuts[s], cuts[s + 1] - cuts[s]);
          channel.writeInbound(
              in); // a partial frame stays in the frame decoder: released with the channel
        }
        for (Object o; (o = channel.readInbound()) != null; ) {
          delivered.add((Message) o);
        }
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
      boolean open = channel.isOpen();
      List<Message> sent = sentFrames(channel);
      channel.finishAndReleaseAll();
      check(alloc.liveBytes == 0, "%d bytes of buffers not released", alloc.liveBytes);
      return new Outcome(delivered, sent, recorder.exceptions, open, allocated, alloc.largestArray);
    }

    /** The frames the pipeline wrote, decoded, releasing the buffers. */
    private static List<Message> sentFrames(EmbeddedChannel channel) {
      ByteBuf all = Unpooled.buffer();
      for (Object o; (o = channel.readOutbound()) != null; ) {
        ByteBuf b = (ByteBuf) o;
        all.writeBytes(b);
        b.release();
      }
      List<Message> out = new ArrayList<>();
      while (all.isReadable()) {
        int length = all.readInt();
        out.add(Codec.decode(all.readSlice(length)));
      }
      return out;
    }

    private static Kind pickKind(SplittableRandom random) {
      int r = random.nextInt(100);
      return r < 60
          ? Kind.MUTATED
          : r < 72
              ? Kind.SEVERAL_FRAMES
              : r < 84 ? Kind.GARBAGE_BODY : r < 92 ? Kind.HUGE_LENGTH : Kind.PURE_RANDOM;
    }

    private byte[] generate(Kind kind, SplittableRandom random) {
      switch (kind) {
        case MUTATED -> {
          return nonEmpty(mutate(pick(random).clone(), random, 1 + random.nextInt(4)));
        }
        case SEVERAL_FRAMES -> {
          byte[] b = pick(random);
          int more = 1 + random.nextInt(3);
          for (int i = 0; i < more; i++) {
            byte[] next = pick(random).clone();
            b = WireTestSupport.concat(b, random.nextBoolean() ? mutate(next, random, 1) : next);
          }
          return nonEmpty(b);
        }
        case GARBAGE_BODY -> {
          // a correct prefix, version and type, then random bytes
          byte[] body = new byte[random.nextInt(64)];
          random.nextBytes(body);
          ByteBuf f =
              Unpooled.buffer()
                  .writeInt(2 + body.length)
                  .writeByte(WireSettings.PROTOCOL_VERSION)
                  .writeByte(1 + random.nextInt(10))
                  .writeBytes(body);
          return bytes(f);
        }
        case HUGE_LENGTH -> {
          // a frame whose prefix, or a length or count inside it, is far beyond what follows
          byte[] b = pick(random).clone();
          int pos = random.nextInt(4) == 0 ? 0 : random.nextInt(Math.max(1, b.length - 3));
          int huge =
              random.nextBoolean()
                  ? INTERESTING_INTS[INTERESTING_INTS.length - 1 - random.nextInt(6)]
                  : MAX_FRAME + random.nextInt(Integer.MAX_VALUE - MAX_FRAME);
          if (b.length >= 4) {
            Unpooled.wrappedBuffer(b).setInt(Math.min(pos, b.length - 4), huge);
          }
          return b;
        }
        default -> {
          byte[] b = new byte[1 + random.nextInt(64)];
          random.nextBytes(b);
          return b;
        }
      }
    }

    private byte[] pick(SplittableRandom random) {
      return corpus.get(random.nextInt(corpus.size()));
    }

    private byte[] nonEmpty(byte[] b) {
      return b.length == 0 ? corpus.get(0) : b;
    }

    private static byte[] bytes(ByteBuf b) {
      byte[] out = new byte[b.readableBytes()];
      b.readBytes(out);
      return out;
    }
  }

  /** {@code mutations} random changes of {@code b} (which it may modify). */
  static byte[] mutate(byte[] b, SplittableRandom random, int mutations) {
    for (int i = 0; i < mutations && b.length > 0; i++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(9)) {
        case 0 -> {
          // flip a bit
          b[at] ^= (byte) (1 << random.nextInt(8));
        }
        case 1 -> {
          // a random byte
          b[at] = (byte) random.nextInt(256);
        }
        case 2 -> {
          // the version or type byte of the first frame: unknown types and versions
          b[Math.min(b.length - 1, 4 + random.nextInt(2))] = (byte) random.nextInt(256);
        }
        case 3 -> {
          // an interesting int anywhere, often over a length, count, enum or version
          if (b.length >= 4) {
            Unpooled.wrappedBuffer(b)
                .setInt(
                    random.nextInt(b.length - 3),
                    INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)]);
          }
        }
        case 4 -> {
          // truncate, fixing the length prefix half of the time
          b = Arrays.copyOf(b, at);
          if (b.length >= 4 && random.nextBoolean()) {
            Unpooled.wrappedBuffer(b).setInt(0, b.length - 4);
          }
        }
        case 5 -> {
          // insert random bytes, fixing the length prefix half of the time
          byte[] extra = new byte[1 + random.nextInt(8)];
          random.nextBytes(extra);
          b =
              WireTestSupport.concat(
                  Arrays.copyOf(b, at), extra, Arrays.copyOfRange(b, at, b.length));
          if (b.length >= 4 && random.nextBoolean()) {
            Unpooled.wrappedBuffer(b).setInt(0, b.length - 4);
          }
        }
        case 6 -> {
          // delete a range
          int end = Math.min(b.length, at + 1 + random.nextInt(8));
          b = WireTestSupport.concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, end, b.length));
        }
        case 7 -> {
          // a byte that breaks a path or a UTF-8 sequence
          b[at] = (byte) new int[] {0, '/', '.', 0x7f, 0xc3, 0xff}[random.nextInt(6)];
        }
        default -> {
          // shift the length prefix a little
          if (b.length >= 4) {
            ByteBuf w = Unpooled.wrappedBuffer(b);
            w.setInt(0, w.getInt(0) + random.nextInt(-8, 9));
          }
        }
      }
    }
    return b;
  }
}
