package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.repeater.RepeaterListener;
import io.zoolander.testsupport.Await;
import io.zoolander.testsupport.ScriptedPeer;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.Role;
import io.zoolander.wire.WireSettings;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 19, item 9e: a repeater cut off from every plugin (so no STATUS, ACK or ERROR can tell it
 * of a newer epoch) but still reaching the duplicates' ZooKeeper learns that another repeater
 * claimed a newer epoch from the state znodes, deposes itself, and tells its clients so
 * (STALE_EPOCH), instead of letting their writes time out.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EpochCheckTest {

  /** A duplicate whose plugin is unreachable and whose state another repeater may claim. */
  private static final class PartitionedDuplicate implements DuplicateSource {
    private final PluginEndpoint endpoint;
    private volatile BookkeepingState state = new BookkeepingState(0, 0);

    PartitionedDuplicate(PluginEndpoint endpoint) {
      this.endpoint = endpoint;
    }

    @Override
    public int duplicateId() {
      return endpoint.duplicateId();
    }

    @Override
    public String connectString() {
      return "partitioned:" + endpoint.address();
    }

    @Override
    public BookkeepingState readState(long timeoutMillis) {
      return state;
    }

    @Override
    public Claim claim(long epoch, long timeoutMillis) {
      state = new BookkeepingState(epoch, state.appliedSeq());
      return new Claim(state, Optional.of(endpoint));
    }

    @Override
    public void watchEndpoint(Consumer<Optional<PluginEndpoint>> listener) {
      listener.accept(Optional.of(endpoint));
    }

    @Override
    public void close() {}
  }

  @Test
  void aRepeaterCutOffFromThePluginsLearnsOfTheNewEpochFromTheStateZnodes() throws Exception {
    PartitionedDuplicate one = new PartitionedDuplicate(unreachable(1));
    PartitionedDuplicate two = new PartitionedDuplicate(unreachable(2));
    List<String> deposed = new CopyOnWriteArrayList<>();
    RepeaterListener listener =
        new RepeaterListener() {
          @Override
          public void deposed(int duplicateId, String reason) {
            deposed.add(duplicateId + ": " + reason);
          }
        };
    try (RepeaterCore old = start(List.of(one, two), listener);
        ScriptedPeer client = ScriptedPeer.connect("127.0.0.1", old.boundAddress().getPort())) {
      client.send(new Message.Hello(Role.CLIENT, "7", WireSettings.PROTOCOL_VERSION));
      assertThat(old.epoch()).isEqualTo(1);

      two.claim(2, 1_000); // a new repeater takes over; the old one hears nothing on the wire

      Message.Error error = client.nextOf(Message.Error.class);
      assertThat(error.code()).isEqualTo(ErrorCode.STALE_EPOCH);
      client.expectClosed();
      // The listener hears of it just after the clients are told: wait for both.
      Await.await(
          Duration.ofSeconds(10),
          "the old repeater is deposed and its listener told",
          () -> old.isDeposed() && !deposed.isEmpty());
      assertThat(deposed).singleElement().asString().startsWith("2: ").contains("epoch 2");
    }
  }

  private static PluginEndpoint unreachable(int duplicateId) throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return new PluginEndpoint(duplicateId, duplicateId, "127.0.0.1", s.getLocalPort());
    }
  }

  private static RepeaterCore start(List<DuplicateSource> sources, RepeaterListener listener)
      throws Exception {
    CoreConfig config = TestCoreConfigs.loopback();
    RepeaterCore core = new RepeaterCore(config, sources, listener);
    core.epochCheckMillis(100);
    try {
      core.start();
    } catch (Exception e) {
      core.close();
      throw e;
    }
    return core;
  }
}
