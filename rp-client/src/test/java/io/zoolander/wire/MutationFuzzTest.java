package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.decode;
import static io.zoolander.wire.WireTestSupport.encode;
import static io.zoolander.wire.WireTestSupport.sampleMessages;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.zoolander.wire.WireTestSupport.Peer;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Seeded random mutations of valid frames. Whatever the bytes, the pipeline either delivers messages (which then
 * re-encode to a stable round trip) or, at most once, answers with an ERROR frame, closes the channel and fires a
 * WireException; it may also wait for more bytes. Nothing else escapes, and no buffer leaks.
 *
 * <p>Seed and count can be changed with {@code -Dwire.fuzz.seed=...} and {@code -Dwire.fuzz.iterations=...}.
 */
class MutationFuzzTest {
  static final int MAX_FRAME = 16 * 1024; // small, so mutated lengths often exceed it
  static final int[] INTERESTING_INTS = {
    0, 1, -1, 2, 5, 127, 128, 255, 256, 1000, 1001, MAX_FRAME - 4, MAX_FRAME - 3, MAX_FRAME,
    WireSettings.MAX_DATA_BYTES + 1, Integer.MAX_VALUE, Integer.MIN_VALUE
  };

  @Test
  void noMutationEscapesTheDefinedOutcomes() {
    long seed = Long.getLong("wire.fuzz.seed", 0x200_1A2D_E4L);
    int iterations = Integer.getInteger("wire.fuzz.iterations", 20_000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    SplittableRandom random = new SplittableRandom(seed);
    List<byte[]> corpus = sampleMessages().stream().map(m -> encode(m)).toList();
    Map<ErrorCode, Integer> outcomes = new EnumMap<>(ErrorCode.class);
    int delivered = 0;
    int waiting = 0;
    int done = 0;

    for (; done < iterations && System.nanoTime() < deadline; done++) {
      byte[] input = mutate(corpus, random);
      if (input.length == 0) { // Netty never delivers an empty read
        input = corpus.get(0);
      }
      String context = "iteration " + done + " (seed " + seed + "), input " + HexFormat.of().formatHex(
          input, 0, Math.min(input.length, 96));
      Peer peer = new Peer(MAX_FRAME);
      ByteBuf in = Unpooled.copiedBuffer(input);

      peer.channel.writeInbound(in);
      List<Message> got = peer.inbound();

      List<Throwable> exceptions = peer.recorder.exceptions;
      assertThat(exceptions).as(context).hasSizeLessThanOrEqualTo(1);
      if (exceptions.isEmpty()) {
        assertThat(peer.channel.isOpen()).as(context).isTrue();
        assertThat(peer.sent()).as(context).isEmpty();
        if (!got.isEmpty()) {
          delivered++;
          assertThat(decode(encode(got.toArray(Message[]::new)))).as(context).isEqualTo(got);
        } else {
          waiting++;
        }
      } else {
        Throwable t = exceptions.get(0);
        assertThat(t).as(context).isInstanceOf(WireException.class);
        ErrorCode code = ((WireException) t).code();
        assertThat(code.closesConnection()).as(context).isTrue();
        assertThat(peer.channel.isOpen()).as(context).isFalse();
        List<Message> answer = decode(peer.sent());
        assertThat(answer).as(context).containsExactly(Message.Error.of(code, t.getMessage()));
        outcomes.merge(code, 1, Integer::sum);
      }
      peer.channel.finishAndReleaseAll();
      assertThat(in.refCnt()).as(context + ": input buffer leaked").isZero();
    }

    System.out.printf("fuzz: %d mutations, %d delivered, %d waiting for more bytes, errors %s%n",
        done, delivered, waiting, outcomes);
    assertThat(done).as("mutations run before the deadline").isGreaterThanOrEqualTo(Math.min(iterations, 5_000));
    assertThat(outcomes).as("the mutations reach every protocol error").containsKeys(ErrorCode.FRAME_TOO_LARGE,
        ErrorCode.MALFORMED_FRAME, ErrorCode.UNKNOWN_MESSAGE_TYPE, ErrorCode.UNSUPPORTED_VERSION);
  }

  /** One or two valid frames, then one to four random mutations. */
  static byte[] mutate(List<byte[]> corpus, SplittableRandom random) {
    byte[] b = corpus.get(random.nextInt(corpus.size()));
    if (random.nextInt(4) == 0) {
      b = WireTestSupport.concat(b, corpus.get(random.nextInt(corpus.size())));
    }
    b = b.clone();
    int mutations = 1 + random.nextInt(4);
    for (int i = 0; i < mutations && b.length > 0; i++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(8)) {
        case 0: // flip a bit
          b[at] ^= (byte) (1 << random.nextInt(8));
          break;
        case 1: // random byte
          b[at] = (byte) random.nextInt(256);
          break;
        case 2: // the version or type byte of the first frame
          b[Math.min(b.length - 1, 4 + random.nextInt(2))] = (byte) random.nextInt(256);
          break;
        case 3: // an interesting int anywhere, often over a length or count
          if (b.length >= 4) {
            int pos = random.nextInt(b.length - 3);
            Unpooled.wrappedBuffer(b).setInt(pos, INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)]);
          }
          break;
        case 4: // truncate, fixing the length prefix half of the time
          b = Arrays.copyOf(b, at);
          if (b.length >= 4 && random.nextBoolean()) {
            Unpooled.wrappedBuffer(b).setInt(0, b.length - 4);
          }
          break;
        case 5: // insert random bytes, fixing the length prefix half of the time
          byte[] extra = new byte[1 + random.nextInt(8)];
          random.nextBytes(extra);
          b = WireTestSupport.concat(Arrays.copyOf(b, at), extra, Arrays.copyOfRange(b, at, b.length));
          if (b.length >= 4 && random.nextBoolean()) {
            Unpooled.wrappedBuffer(b).setInt(0, b.length - 4);
          }
          break;
        case 6: // delete a range
          int end = Math.min(b.length, at + 1 + random.nextInt(8));
          b = WireTestSupport.concat(Arrays.copyOf(b, at), Arrays.copyOfRange(b, end, b.length));
          break;
        default: // shift the length prefix a little
          if (b.length >= 4) {
            ByteBuf w = Unpooled.wrappedBuffer(b);
            w.setInt(0, w.getInt(0) + random.nextInt(-8, 9));
          }
          break;
      }
    }
    return b;
  }
}
