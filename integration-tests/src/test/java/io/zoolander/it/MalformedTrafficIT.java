package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.zoolander.client.NodeData;
import io.zoolander.client.ZoolanderClient;
import io.zoolander.it.RawConnection.Raw;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A few thousand malformed connections and frames from raw sockets against a real repeater and two
 * real plugins (each on a one-server ZooKeeper duplicate in a child JVM), while a well-formed SDK
 * client keeps writing and reading. The client is served throughout, every answer the attackers
 * check carries the defined error code, nothing of the attack is applied, and afterwards no server
 * holds a connection it should have dropped: the sockets on the servers' ports, read from {@code
 * /proc/net/tcp} (Linux; the test is skipped elsewhere), are back to those of the client and the
 * repeater.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class MalformedTrafficIT {
  static final int CONNECTIONS = 3_000;
  static final int ATTACKERS = 4;

  /** Connections that send half a frame and then stay open until the attack ends (slowloris). */
  static final int HELD_OPEN = 60;

  static final Duration ATTACK_LIMIT = Duration.ofMinutes(3);
  static final long SEED = 0x5EED_BAD;
  static final long RAW_CLIENT = 888_000;

  /**
   * The lowest message type the protocol does not define or reserve (1..12 are HELLO..AUTH, 13
   * PLANNED_SLOWNESS, 14 reserved, 15 and 16 the state transfer's, 17..19 the watches'): a known
   * type would be parsed, and its random body refused as malformed.
   */
  private static final int FIRST_UNKNOWN_TYPE = 20;

  /** The kinds of connection the attackers open, in turn. */
  enum Kind {
    HUGE_LENGTH,
    UNKNOWN_TYPE,
    BAD_VERSION,
    TRUNCATED_BODY,
    NO_HELLO,
    REFUSED_REQUESTS,
    GARBAGE,
    MUTATED,
    HALF_FRAME,
    RESET,
    CONNECT_ONLY,
    HELD_OPEN
  }

  @Test
  void thousandsOfMalformedConnectionsLeaveTheServersServingAndNoConnectionBehind()
      throws Exception {
    assumeThat(Path.of("/proc/net/tcp")).as("Linux /proc/net/tcp").isReadable();
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    try (EmbeddedCluster cluster = EmbeddedCluster.builder().duplicates(2).start();
        ZoolanderClient client = cluster.clientBuilder().meterRegistry(meters).build()) {
      client.create("/live", counter(0)).get(30, TimeUnit.SECONDS);
      assertThat(client.getData("/live").get(30, TimeUnit.SECONDS).data()).isEqualTo(counter(0));
      List<InetSocketAddress> targets = new ArrayList<>();
      targets.add(cluster.repeater().boundAddress());
      for (int id : cluster.duplicateIds()) {
        PluginEndpoint e = cluster.repeater().duplicate(id).endpoint().orElseThrow();
        targets.add(new InetSocketAddress(e.host(), e.port()));
      }
      Set<Integer> ports =
          Set.of(targets.get(0).getPort(), targets.get(1).getPort(), targets.get(2).getPort());
      List<String> baseline = serverSockets(ports);

      // The well-formed client: write, then read its own write, until the attack is over.
      AtomicBoolean attacking = new AtomicBoolean(true);
      List<String> clientProblems = new CopyOnWriteArrayList<>();
      AtomicInteger served = new AtomicInteger();
      AtomicLong slowestNanos = new AtomicLong();
      Thread wellFormed =
          new Thread(
              () -> {
                int i = 0;
                long slowest = 0;
                while (attacking.get() && clientProblems.isEmpty()) {
                  i++;
                  long start = System.nanoTime();
                  try {
                    if (!client
                        .setData("/live", counter(i), -1)
                        .get(30, TimeUnit.SECONDS)
                        .succeeded()) {
                      clientProblems.add("write " + i + " failed");
                    }
                    NodeData read = client.getData("/live").get(30, TimeUnit.SECONDS);
                    if (!Arrays.equals(read.data(), counter(i))) {
                      clientProblems.add(
                          "read after write "
                              + i
                              + " returned "
                              + ByteBuffer.wrap(read.data()).getInt());
                    }
                    served.incrementAndGet();
                  } catch (Exception e) {
                    clientProblems.add("write/read " + i + ": " + e);
                  }
                  slowest = Math.max(slowest, System.nanoTime() - start);
                }
                slowestNanos.set(slowest);
              },
              "well-formed-client");
      wellFormed.start();

      // The attack: CONNECTIONS connections spread over the repeater and both plugins, each kind in
      // turn.
      Map<String, Integer> seen = new ConcurrentHashMap<>();
      List<String> attackProblems = new CopyOnWriteArrayList<>();
      List<RawConnection> held = Collections.synchronizedList(new ArrayList<>());
      AtomicInteger frames = new AtomicInteger();
      AtomicInteger done = new AtomicInteger();
      long attackStart = System.nanoTime();
      long deadline = attackStart + ATTACK_LIMIT.toNanos();
      ExecutorService attackers = Executors.newFixedThreadPool(ATTACKERS);
      List<Future<?>> runs = new ArrayList<>();
      for (int a = 0; a < ATTACKERS; a++) {
        int attacker = a;
        runs.add(
            attackers.submit(
                () -> {
                  SplittableRandom random = new SplittableRandom(SEED + attacker);
                  for (int n = attacker;
                      n < CONNECTIONS && System.nanoTime() < deadline;
                      n += ATTACKERS) {
                    Kind kind = Kind.values()[n % Kind.values().length];
                    if (kind == Kind.HELD_OPEN && held.size() >= HELD_OPEN) {
                      kind = Kind.GARBAGE;
                    }
                    InetSocketAddress target =
                        targets.get((n / Kind.values().length) % targets.size());
                    boolean repeater = target.equals(targets.get(0));
                    try {
                      String outcome = attack(kind, target, repeater, random, frames, held);
                      seen.merge(
                          kind + (repeater ? " repeater" : " plugin") + ": " + outcome,
                          1,
                          Integer::sum);
                    } catch (IOException | RuntimeException e) {
                      attackProblems.add(kind + " on " + target + ": " + e);
                    } catch (AssertionError e) {
                      attackProblems.add(kind + " on " + target + ": " + e.getMessage());
                    }
                    done.incrementAndGet();
                  }
                }));
      }
      for (Future<?> run : runs) {
        run.get(ATTACK_LIMIT.toMillis() + 60_000, TimeUnit.MILLISECONDS);
      }
      attackers.shutdown();
      long attackMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - attackStart);
      for (RawConnection c : held) {
        c.close();
      }
      attacking.set(false);
      wellFormed.join(60_000);

      System.out.printf(
          "malformed traffic: %d connections (%d frames) in %d ms; the well-formed client had %d writes"
              + " and reads served meanwhile, the slowest pair %.1f ms; outcomes %s%n",
          done.get(),
          frames.get(),
          attackMs,
          served.get(),
          slowestNanos.get() / 1e6,
          new TreeMap<>(seen));
      assertThat(done.get()).as("connections made within %s", ATTACK_LIMIT).isEqualTo(CONNECTIONS);
      assertThat(attackProblems).as("answers that were not the defined ones").isEmpty();
      assertThat(clientProblems).as("the well-formed client").isEmpty();
      assertThat(served.get()).as("writes and reads served during the attack").isPositive();

      // No server keeps a connection its peer has closed.
      List<String> now = serverSockets(ports);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (now.size() != baseline.size() && System.nanoTime() < until) {
        Thread.sleep(100); // polling the kernel's socket table; there is no event to wait on
        now = serverSockets(ports);
      }
      assertThat(now)
          .as("server-side sockets on %s (baseline %s)", ports, baseline)
          .hasSameSizeAs(baseline);

      // Nothing of the attack was applied: every seq is one of the client's writes (or a re-sent
      // copy of one).
      long retries =
          Math.round(
              meters.get("zoolander.client.retries").tag("op", "write").counters().stream()
                  .mapToDouble(c -> c.count())
                  .sum());
      long sequenced = cluster.repeater().nextSeq() - 1;
      assertThat(sequenced)
          .as("seqs: the create, %d setData, %d re-sent", served.get(), retries)
          .isEqualTo(1L + served.get() + retries);
      Map<Integer, TreeDigest> digests = cluster.awaitConverged(Duration.ofSeconds(60));
      for (TreeDigest d : digests.values()) {
        assertThat(d.entries().keySet()).containsExactly("/", "/live");
      }
      // And the servers still serve.
      assertThat(client.setData("/live", counter(-1), -1).get(30, TimeUnit.SECONDS).succeeded())
          .isTrue();
    }
  }

  static byte[] counter(int i) {
    return ByteBuffer.allocate(4).putInt(i).array();
  }

  /**
   * Opens one connection of {@code kind} to {@code target}, sends what the kind sends and, where
   * the outcome is defined, checks the answer.
   *
   * @return a short description of the outcome, for the printed summary
   */
  static String attack(
      Kind kind,
      InetSocketAddress target,
      boolean repeater,
      SplittableRandom random,
      AtomicInteger frames,
      List<RawConnection> held)
      throws IOException {
    byte[] hello = RawConnection.frame(Message.Hello.of(Role.CLIENT, Long.toString(RAW_CLIENT)));
    byte[] valid =
        repeater
            ? RawConnection.frame(
                new Message.Write(RAW_CLIENT, 1, List.of(Op.create("/attack", new byte[8]))))
            : RawConnection.frame(new Message.Read(RAW_CLIENT, 1, ReadKind.GET_DATA, "/attack", 0));
    RawConnection c = RawConnection.open(target, Duration.ofSeconds(20));
    boolean keep = false;
    try {
      switch (kind) {
        case HUGE_LENGTH -> {
          frames.incrementAndGet();
          c.send(
              RawConnection.concat(
                  hello, new byte[] {(byte) (0x40 + random.nextInt(0x40)), 1, 2, 3, 4, 5}));
          return closes(c, ErrorCode.FRAME_TOO_LARGE);
        }
        case UNKNOWN_TYPE -> {
          frames.incrementAndGet();
          int type = FIRST_UNKNOWN_TYPE + random.nextInt(256 - FIRST_UNKNOWN_TYPE);
          c.send(Raw.frame(type).i64(random.nextLong()).build());
          return closes(c, ErrorCode.UNKNOWN_MESSAGE_TYPE);
        }
        case BAD_VERSION -> {
          frames.incrementAndGet();
          c.send(RawConnection.concat(hello, Raw.frame(2 + random.nextInt(254), 2).i64(1).build()));
          return closes(c, ErrorCode.UNSUPPORTED_VERSION);
        }
        case TRUNCATED_BODY -> {
          // a frame whose length prefix matches but whose body stops short
          frames.incrementAndGet();
          byte[] cut = Arrays.copyOf(valid, 6 + random.nextInt(valid.length - 6));
          ByteBuffer.wrap(cut).putInt(0, cut.length - 4);
          c.send(RawConnection.concat(hello, cut));
          return closes(c, ErrorCode.MALFORMED_FRAME);
        }
        case NO_HELLO -> {
          frames.incrementAndGet();
          c.send(valid);
          return closes(c, ErrorCode.UNEXPECTED_MESSAGE);
        }
        case REFUSED_REQUESTS -> {
          // requests refused one by one; the connection stays open
          c.send(hello);
          int count = 1 + random.nextInt(20);
          for (int i = 0; i < count; i++) {
            frames.incrementAndGet();
            c.send(
                repeater
                    ? Raw.frame(2)
                        .i64(RAW_CLIENT)
                        .i64(100 + i)
                        .i32(1)
                        .i8(1)
                        .str("/bad\u0000path")
                        .i8(0)
                        .bytes(new byte[1])
                        .build()
                    : Raw.frame(7)
                        .i64(RAW_CLIENT)
                        .i64(100 + i)
                        .i8(1)
                        .str("no/slash")
                        .i64(0)
                        .build());
            Message m = c.readSkippingStatus();
            assertThat(m)
                .isEqualTo(
                    Message.Error.forRequest(
                        ErrorCode.INVALID_PATH, 100 + i, ((Message.Error) m).message()));
          }
          return "refused " + ErrorCode.INVALID_PATH;
        }
        case GARBAGE -> {
          frames.incrementAndGet();
          byte[] garbage = new byte[1 + random.nextInt(64)];
          random.nextBytes(garbage);
          c.send(garbage);
          return "sent";
        }
        case MUTATED -> {
          // a request after a HELLO with a few bits flipped: never a valid write of this client
          frames.incrementAndGet();
          byte[] b = RawConnection.concat(hello, valid);
          for (int i = 0; i < 1 + random.nextInt(3); i++) {
            b[random.nextInt(hello.length)] ^= (byte) (1 << random.nextInt(8));
          }
          c.send(b);
          return "sent";
        }
        case HALF_FRAME -> {
          frames.incrementAndGet();
          c.send(Arrays.copyOf(valid, valid.length / 2));
          return "sent";
        }
        case RESET -> {
          frames.incrementAndGet();
          c.send(Arrays.copyOf(valid, 3));
          c.reset();
          return "reset";
        }
        case CONNECT_ONLY -> {
          return "closed";
        }
        case HELD_OPEN -> {
          frames.incrementAndGet();
          c.send(Arrays.copyOf(valid, 5));
          held.add(c);
          keep = true;
          return "held";
        }
        default -> throw new IllegalStateException("kind " + kind);
      }
    } finally {
      if (!keep) {
        c.close();
      }
    }
  }

  /**
   * Reads the ERROR that closes the connection, checks its code, and the end of stream after it.
   */
  static String closes(RawConnection c, ErrorCode expected) throws IOException {
    Message m = c.readSkippingStatus();
    assertThat(m)
        .isInstanceOfSatisfying(
            Message.Error.class,
            e -> {
              assertThat(e.code()).isEqualTo(expected);
              assertThat(e.requestId()).isEqualTo(Message.Error.NO_REQUEST);
            });
    assertThat(c.readsEndOfStream()).as("end of stream after %s", m).isTrue();
    return "ERROR " + expected + ", closed";
  }

  /**
   * The TCP sockets on this host whose local port is one of {@code ports}, except listening sockets
   * and TIME_WAIT (which the kernel keeps without any process holding it): each a server-side end
   * of a connection. Read from {@code /proc/net/tcp} and {@code tcp6}, as {@code "state local
   * remote"} (hex, as the kernel writes them).
   */
  static List<String> serverSockets(Set<Integer> ports) throws IOException {
    List<String> out = new ArrayList<>();
    for (String file : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      Path path = Path.of(file);
      if (!Files.isReadable(path)) {
        continue;
      }
      List<String> lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
      for (String line : lines.subList(1, lines.size())) {
        String[] f = line.trim().split("\\s+", -1); // trimmed: no trailing empty field to drop
        String local = f[1];
        int port = Integer.parseInt(local.substring(local.lastIndexOf(':') + 1), 16);
        String state = f[3];
        if (ports.contains(port)
            && !state.equals("0A")
            && !state.equals("06")) { // 0A LISTEN, 06 TIME_WAIT
          out.add(state + " " + local + " " + f[2]);
        }
      }
    }
    return out;
  }
}
