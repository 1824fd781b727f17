package io.zoolander.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.client.ZoolanderClient;
import io.zoolander.client.ZoolanderException;
import io.zoolander.it.RawConnection.Raw;
import io.zoolander.server.testing.EmbeddedCluster;
import io.zoolander.server.testing.TreeDigest;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.ReadKind;
import io.zoolander.wire.Role;
import io.zoolander.wire.WireSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each kind of bad input gets its defined {@link ErrorCode} from the real repeater and plugins on
 * real ZooKeeper duplicates, and nothing of it is applied anywhere: the repeater sequences nothing
 * ({@code nextSeq} does not move), and every duplicate keeps its applied seq and its tree. Where
 * the client SDK refuses the input before sending, the test also sends it raw and checks that the
 * servers refuse it too.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class BadInputIT {
  static final int WRITE = 2;
  static final int READ = 7;
  static final int OP_CREATE = 1;
  static final int OP_SET_DATA = 2;
  static final int OP_DELETE = 3;
  static final long RAW_CLIENT = 777_000;

  private static EmbeddedCluster cluster;
  private static ZoolanderClient client;
  private long nextRequest = 1;
  private Snapshot before;

  /** What the deployment held before a test: the next seq, and every duplicate's state and tree. */
  record Snapshot(long nextSeq, Map<Integer, TreeDigest> digests) {}

  @BeforeAll
  static void startCluster() throws Exception {
    cluster = EmbeddedCluster.builder().duplicates(2).start();
    client = cluster.newClient();
    client.create("/app", utf8("before")).get(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void snapshot() throws Exception {
    long next = cluster.repeater().nextSeq();
    before = new Snapshot(next, cluster.awaitApplied(next - 1, Duration.ofSeconds(30)));
  }

  /** Nothing was sequenced since the snapshot, and every duplicate holds what it held. */
  private void assertNothingApplied() throws Exception {
    assertThat(cluster.repeater().nextSeq())
        .as("seq sequenced since the test started")
        .isEqualTo(before.nextSeq());
    Map<Integer, TreeDigest> now = cluster.digests();
    for (int id : cluster.duplicateIds()) {
      assertThat(now.get(id).state())
          .as("duplicate %d state", id)
          .isEqualTo(before.digests().get(id).state());
      assertThat(now.get(id).differences(before.digests().get(id), 5))
          .as("duplicate %d tree", id)
          .isEmpty();
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static InetSocketAddress repeater() {
    return cluster.repeater().boundAddress();
  }

  private static InetSocketAddress plugin(int duplicate) {
    PluginEndpoint e = cluster.repeater().duplicate(duplicate).endpoint().orElseThrow();
    return new InetSocketAddress(e.host(), e.port());
  }

  /** A raw client connection to a plugin, past its STATUS answer. */
  private static RawConnection pluginClient(int duplicate) throws IOException {
    RawConnection c = RawConnection.client(plugin(duplicate), RAW_CLIENT);
    assertThat(c.read()).isInstanceOf(Message.Status.class);
    return c;
  }

  private Raw write() {
    return Raw.frame(WRITE).i64(RAW_CLIENT).i64(nextRequest++);
  }

  /**
   * Reads the refusal of the request just sent: an ERROR naming it, with {@code code}; the
   * connection stays.
   */
  private Message.Error refusal(RawConnection c, ErrorCode code) throws IOException {
    Message m = c.readSkippingStatus();
    assertThat(m).isInstanceOf(Message.Error.class);
    Message.Error e = (Message.Error) m;
    assertThat(e.code()).as("code of %s", e).isEqualTo(code);
    assertThat(e.requestId()).as("request of %s", e).isEqualTo(nextRequest - 1);
    assertThat(code.closesConnection()).isFalse();
    return e;
  }

  /**
   * Reads the ERROR that refuses the whole connection: {@code code}, naming no request, then the
   * end of the stream.
   */
  private static Message.Error closingError(RawConnection c, ErrorCode code) throws IOException {
    Message m = c.readSkippingStatus();
    assertThat(m).isInstanceOf(Message.Error.class);
    Message.Error e = (Message.Error) m;
    assertThat(e.code()).as("code of %s", e).isEqualTo(code);
    assertThat(e.requestId()).isEqualTo(Message.Error.NO_REQUEST);
    assertThat(c.readsEndOfStream()).as("end of stream after %s", e).isTrue();
    return e;
  }

  /**
   * The SDK fails {@code call} with BADARGUMENTS, and {@code code} if a server refused it (null:
   * before sending).
   */
  private static void sdkRefuses(Supplier<CompletableFuture<?>> call, ErrorCode code) {
    assertThatThrownBy(() -> call.get().get(30, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            ZoolanderException.class,
            e -> {
              assertThat(e.code()).isEqualTo(KeeperException.Code.BADARGUMENTS);
              if (code == null) {
                assertThat(e.errorCode()).as("refused before sending").isEmpty();
              } else {
                assertThat(e.errorCode()).contains(code);
              }
            });
  }

  @Test
  void oversizedValuesAreTooLargeAndRefusedBeforeSequencing() throws Exception {
    byte[] max = new byte[WireSettings.MAX_DATA_BYTES];
    // 1 MiB of data fits a frame but not ZooKeeper's default jute.maxbuffer (1 MiB - 1): the
    // repeater refuses it.
    sdkRefuses(() -> client.setData("/app", max, -1), ErrorCode.TOO_LARGE);
    // Two of them do not fit a frame: the SDK refuses them before sending.
    sdkRefuses(() -> client.write(List.of(Op.create("/x", max), Op.create("/y", max))), null);

    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      raw.send(write().i32(1).i8(OP_SET_DATA).str("/app").bytes(max).i32(-1).build());
      assertThat(refusal(raw, ErrorCode.TOO_LARGE).message()).contains("jute.maxbuffer");
      raw.send(
          write().i32(1).i8(OP_CREATE).str("/big").i8(0).bytes(new byte[max.length + 1]).build());
      assertThat(refusal(raw, ErrorCode.TOO_LARGE).message())
          .contains("exceed the limit of " + max.length);
      Raw tooMany = write().i32(WireSettings.MAX_OPS_PER_MESSAGE + 1);
      for (int i = 0; i <= WireSettings.MAX_OPS_PER_MESSAGE; i++) {
        tooMany.i8(OP_DELETE).str("/app").i32(-1);
      }
      raw.send(tooMany.build());
      refusal(raw, ErrorCode.TOO_LARGE);
    }
    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      raw.send(
          write()
              .i32(2)
              .i8(OP_CREATE)
              .str("/x")
              .i8(0)
              .bytes(max)
              .i8(OP_CREATE)
              .str("/y")
              .i8(0)
              .bytes(max)
              .build());
      closingError(raw, ErrorCode.FRAME_TOO_LARGE);
    }
    assertNothingApplied();

    // Just under the limit is applied, on every duplicate.
    byte[] almost = new byte[1_000_000];
    assertThat(client.setData("/app", almost, -1).get(30, TimeUnit.SECONDS).succeeded()).isTrue();
    long seq = before.nextSeq();
    Map<Integer, TreeDigest> digests = cluster.awaitApplied(seq, Duration.ofSeconds(30));
    digests.values().forEach(d -> assertThat(d).isEqualTo(digests.get(1)));
  }

  @Test
  void illegalPathsAreInvalidPath() throws Exception {
    List<String> illegal =
        List.of(
            "/a\u0000b",
            "/bad\u0001char",
            "/a/../b",
            "/a/./b",
            "/a//b",
            "/trailing/",
            "relative",
            "/x\uFFFE",
            "/zoo/\uD83D\uDE00");
    for (String path : illegal) {
      sdkRefuses(() -> client.create(path, utf8("x")), null);
      sdkRefuses(() -> client.getData(path), null);
    }
    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      for (String path : illegal) {
        raw.send(write().i32(1).i8(OP_CREATE).str(path).i8(0).bytes(utf8("x")).build());
        assertThat(refusal(raw, ErrorCode.INVALID_PATH).message()).contains("path");
        raw.send(
            write()
                .i32(2)
                .i8(OP_DELETE)
                .str("/app")
                .i32(-1)
                .i8(OP_SET_DATA)
                .str(path)
                .bytes(utf8("x"))
                .i32(-1)
                .build());
        assertThat(refusal(raw, ErrorCode.INVALID_PATH).message()).contains("ops[1]");
      }
    }
    for (int duplicate : cluster.duplicateIds()) {
      try (RawConnection raw = pluginClient(duplicate)) {
        for (String path : illegal) {
          raw.send(
              Raw.frame(READ)
                  .i64(RAW_CLIENT)
                  .i64(nextRequest++)
                  .i8(ReadKind.GET_DATA.code())
                  .str(path)
                  .i64(0)
                  .build());
          refusal(raw, ErrorCode.INVALID_PATH);
        }
      }
    }
    assertNothingApplied();
  }

  @Test
  void opsOnZoolandersOwnZnodesAreInvalidOp() throws Exception {
    String base = cluster.znodes().basePath();
    List<String> own =
        List.of(
            base,
            cluster.znodes().state(),
            cluster.znodes().clients(),
            cluster.znodes().client(RAW_CLIENT),
            cluster.znodes().endpoint(),
            cluster.znodes().anomaly(),
            cluster.znodes().dataRoot() + "/app");
    for (String path : own) {
      sdkRefuses(() -> client.setData(path, utf8("x"), -1), null);
      sdkRefuses(() -> client.delete(path, -1), null);
      sdkRefuses(() -> client.create(path + "/child", utf8("x")), null);
    }
    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      for (String path : own) {
        raw.send(write().i32(1).i8(OP_SET_DATA).str(path).bytes(utf8("x")).i32(-1).build());
        assertThat(refusal(raw, ErrorCode.INVALID_OP).message()).contains(path, "reserved");
        raw.send(
            write()
                .i32(2)
                .i8(OP_CREATE)
                .str("/fine")
                .i8(0)
                .bytes(new byte[0])
                .i8(OP_DELETE)
                .str(path)
                .i32(-1)
                .build());
        assertThat(refusal(raw, ErrorCode.INVALID_OP).message()).contains("ops[1]");
      }
    }
    assertNothingApplied();
  }

  @Test
  void unknownOpsAreUnknownOp() throws Exception {
    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      for (int type : new int[] {0, 5, 9, 200, 255}) {
        raw.send(
            write().i32(2).i8(OP_DELETE).str("/app").i32(-1).i8(type).str("/app").i64(42).build());
        assertThat(refusal(raw, ErrorCode.UNKNOWN_OP).message())
            .contains("unknown op type " + type);
      }
    }
    for (int duplicate : cluster.duplicateIds()) {
      try (RawConnection raw = pluginClient(duplicate)) {
        for (int kind : new int[] {0, 4, 99}) {
          raw.send(
              Raw.frame(READ)
                  .i64(RAW_CLIENT)
                  .i64(nextRequest++)
                  .i8(kind)
                  .str("/app")
                  .i64(0)
                  .build());
          refusal(raw, ErrorCode.UNKNOWN_OP);
        }
      }
    }
    assertNothingApplied();
  }

  @Test
  void ephemeralAndOtherNonReplicatedCreateModesAreInvalidOp() throws Exception {
    List<CreateMode> modes = new ArrayList<>();
    for (CreateMode mode : CreateMode.values()) {
      if (mode != CreateMode.PERSISTENT && mode != CreateMode.PERSISTENT_SEQUENTIAL) {
        modes.add(mode);
        // The SDK cannot even build such an op.
        assertThatThrownBy(() -> new Op.Create("/e", new byte[0], mode))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining(mode.name());
      }
    }
    assertThat(modes)
        .contains(
            CreateMode.EPHEMERAL,
            CreateMode.EPHEMERAL_SEQUENTIAL,
            CreateMode.CONTAINER,
            CreateMode.PERSISTENT_WITH_TTL);
    try (RawConnection raw = RawConnection.client(repeater(), RAW_CLIENT)) {
      for (CreateMode mode : modes) {
        raw.send(write().i32(1).i8(OP_CREATE).str("/e").i8(mode.toFlag()).bytes(utf8("x")).build());
        assertThat(refusal(raw, ErrorCode.INVALID_OP).message())
            .contains(mode.name(), "not replicated");
      }
    }
    assertNothingApplied();
  }

  /**
   * After an ERROR that closes the connection the peer sees exactly that ERROR (no request named),
   * then the end of the stream; what it sends meanwhile is read and discarded, and once the linger
   * is over further sends fail. Nothing it sent after the bad frame is applied, even a well-formed
   * write, or a SEQUENCED sent to a plugin after a HELLO.
   */
  @Test
  void aClientThatKeepsSendingAfterAClosingErrorGetsNothingApplied() throws Exception {
    List<byte[]> goodWrites = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      goodWrites.add(
          RawConnection.frame(
              new Message.Write(
                  RAW_CLIENT, 1_000 + i, List.of(Op.create("/after-" + i, utf8("x"))))));
    }
    byte[] hello = RawConnection.frame(Message.Hello.of(Role.CLIENT, Long.toString(RAW_CLIENT)));
    // The cases are only iterated, never compared or hashed.
    @SuppressWarnings("ArrayRecordComponent")
    record Case(String name, Supplier<InetSocketAddress> to, byte[] bad, ErrorCode code) {}
    List<Case> cases =
        List.of(
            new Case(
                "unknown type",
                BadInputIT::repeater,
                RawConnection.concat(hello, Raw.frame(77).i64(1).build()),
                ErrorCode.UNKNOWN_MESSAGE_TYPE),
            new Case(
                "bad version",
                BadInputIT::repeater,
                RawConnection.concat(hello, Raw.frame(9, WRITE).build()),
                ErrorCode.UNSUPPORTED_VERSION),
            new Case(
                "truncated write",
                BadInputIT::repeater,
                RawConnection.concat(
                    hello, Raw.frame(WRITE).i64(RAW_CLIENT).i64(5).i32(1).i8(OP_DELETE).build()),
                ErrorCode.MALFORMED_FRAME),
            new Case(
                "huge length",
                BadInputIT::repeater,
                RawConnection.concat(hello, new byte[] {0x7f, -1, -1, -1}),
                ErrorCode.FRAME_TOO_LARGE),
            new Case(
                "no hello", BadInputIT::repeater, goodWrites.get(0), ErrorCode.UNEXPECTED_MESSAGE),
            new Case(
                "hello of another version",
                BadInputIT::repeater,
                RawConnection.frame(new Message.Hello(Role.CLIENT, Long.toString(RAW_CLIENT), 2)),
                ErrorCode.UNSUPPORTED_VERSION),
            new Case(
                "plugin: hello of another version",
                () -> plugin(1),
                RawConnection.frame(new Message.Hello(Role.REPEATER, "intruder", 3)),
                ErrorCode.UNSUPPORTED_VERSION),
            new Case(
                "plugin: no hello",
                () -> plugin(1),
                RawConnection.frame(
                    new Message.Status(1, 1, 1, io.zoolander.wire.DuplicateState.ACTIVE)),
                ErrorCode.UNEXPECTED_MESSAGE),
            new Case(
                "plugin: garbage",
                () -> plugin(2),
                RawConnection.concat(hello, new byte[] {0, 0, 0, 3, 1, 2, 3}),
                ErrorCode.MALFORMED_FRAME));
    long epoch =
        cluster.repeater().epoch() + 1000; // a SEQUENCED that would apply if it were accepted
    byte[] sequenced =
        RawConnection.concat(
            RawConnection.frame(Message.Hello.of(Role.REPEATER, "intruder")),
            RawConnection.frame(
                new Message.Sequenced(
                    epoch,
                    before.nextSeq(),
                    RAW_CLIENT,
                    1,
                    List.of(Op.create("/intruder", utf8("x"))))));

    // The cases at once, each on its own connection: each waits out the server's linger.
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    for (Case c : cases) {
      runs.add(
          CompletableFuture.runAsync(
              () ->
                  closesAfterTheError(
                      c.name(), c.to().get(), c.bad(), c.code(), goodWrites, sequenced),
              command -> new Thread(command, "bad-input-" + c.name()).start()));
    }
    for (CompletableFuture<Void> run : runs) {
      try {
        run.get(1, TimeUnit.MINUTES);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof AssertionError failed) {
          throw failed;
        }
        throw e;
      }
    }
    assertNothingApplied();
  }

  /**
   * Sends {@code bad}, then good writes and {@code sequenced}, to {@code to}: the peer gets the
   * closing ERROR {@code code}, and once the server has closed (within twice the linger), sending
   * fails.
   */
  private static void closesAfterTheError(
      String name,
      InetSocketAddress to,
      byte[] bad,
      ErrorCode code,
      List<byte[]> goodWrites,
      byte[] sequenced) {
    try (RawConnection raw = RawConnection.open(to, Duration.ofSeconds(10))) {
      raw.send(bad);
      for (byte[] w : goodWrites) {
        raw.send(w); // the server reads and discards these while the ERROR lingers
      }
      raw.send(sequenced);
      assertThat(closingError(raw, code).message()).as(name).isNotEmpty();
      long deadline =
          System.nanoTime()
              + TimeUnit.MILLISECONDS.toNanos(4 * WireSettings.ERROR_LINGER_MILLIS + 5_000);
      boolean failed = false;
      while (!failed && System.nanoTime() < deadline) {
        try {
          raw.send(goodWrites.get(1));
          Thread.sleep(20); // a pause between sends, not a wait for a condition
        } catch (IOException e) {
          failed = true;
        }
      }
      assertThat(failed).as("%s: sending fails once the server has closed", name).isTrue();
    } catch (IOException e) {
      throw new UncheckedIOException(name + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(name + ": interrupted", e);
    }
  }
}
