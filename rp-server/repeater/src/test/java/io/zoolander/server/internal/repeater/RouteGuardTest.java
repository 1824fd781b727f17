package io.zoolander.server.internal.repeater;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.NameRoutes.Frozen;
import io.zoolander.wire.NameRoutes.Moved;
import io.zoolander.wire.Op;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.Test;

class RouteGuardTest {
  private static final long MOVER = 3;
  private static final long OTHER = 4;
  private static final byte[] DATA = "x".getBytes(StandardCharsets.UTF_8);

  private final RouteGuard guard = new RouteGuard(NameRoutes.Versioned.ABSENT);

  @Test
  void aMoveFreezesThenMovesTheNameForEveryoneButTheMover() {
    NameRoutes frozen = NameRoutes.NONE.with("users", new Frozen(MOVER, 0, 1));
    assertSequenced(write(MOVER, new Op.Create(NameRoutes.PATH, frozen.encode(), PERSISTENT)));
    assertThat(guard.current()).isEqualTo(new NameRoutes.Versioned(frozen, 0));

    RouteGuard.Check refused = guard.check(write(OTHER, new Op.SetData("/users/1", DATA, -1)));
    assertThat(refused.refusal().code()).isEqualTo(ErrorCode.NAME_FROZEN);
    assertThat(refused.refusal().retryAfterMillis()).isPositive();
    assertThat(refused.refusal().message()).contains("/users", "client 3");
    assertSequenced(write(MOVER, new Op.SetData("/users/1", DATA, -1)));
    assertSequenced(write(OTHER, new Op.SetData("/orders/1", DATA, -1)));

    NameRoutes moved = NameRoutes.NONE.with("users", new Moved(1, 77, MOVER));
    assertSequenced(write(MOVER, new Op.SetData(NameRoutes.PATH, moved.encode(), 0)));
    assertThat(guard.current()).isEqualTo(new NameRoutes.Versioned(moved, 1));
    RouteGuard.Check gone =
        guard.check(
            write(
                OTHER,
                new Op.SetData("/orders/1", DATA, -1),
                new Op.Delete("/users/1/a", -1))); // any op of the write
    assertThat(gone.refusal().code()).isEqualTo(ErrorCode.NAME_MOVED);
    assertThat(gone.refusal().message()).contains("partition 1", "77");
    assertSequenced(write(MOVER, new Op.Delete("/users/1", -1))); // the old copy's removal
  }

  @Test
  void aChangeIsAdoptedOnlyOnceSequenced() {
    NameRoutes frozen = NameRoutes.NONE.with("users", new Frozen(MOVER, 0, 1));
    RouteGuard.Check check =
        guard.check(write(MOVER, new Op.Create(NameRoutes.PATH, frozen.encode(), PERSISTENT)));
    assertThat(check.refusal()).isNull();
    assertThat(guard.current()).isEqualTo(NameRoutes.Versioned.ABSENT); // e.g. shed: not applied
    assertThat(guard.check(write(OTHER, new Op.SetData("/users", DATA, -1))).refusal()).isNull();
  }

  @Test
  void invalidChangesAreRefusedAsInvalidOps() {
    NameRoutes frozen = NameRoutes.NONE.with("users", new Frozen(MOVER, 0, 1));
    byte[] record = frozen.encode();
    assertInvalid(write(MOVER, new Op.SetData(NameRoutes.PATH, record, -1)), "does not exist yet");
    assertInvalid(
        write(
            MOVER,
            new Op.Create(NameRoutes.PATH, record, PERSISTENT),
            new Op.Create("/a", DATA, PERSISTENT)),
        "write of its own");
    assertInvalid(
        write(MOVER, new Op.Create(NameRoutes.PATH + "/x", DATA, PERSISTENT)), "no children");
    assertInvalid(write(MOVER, new Op.Create(NameRoutes.PATH, DATA, PERSISTENT)), "first line");
    assertInvalid(write(OTHER, new Op.Create(NameRoutes.PATH, record, PERSISTENT)), "itself only");
    assertInvalid(
        write(MOVER, new Op.Create(NameRoutes.PATH, record, CreateMode.PERSISTENT_SEQUENTIAL)),
        "persistent create");
    assertSequenced(write(MOVER, new Op.Create(NameRoutes.PATH, record, PERSISTENT)));
    assertInvalid(write(MOVER, new Op.Create(NameRoutes.PATH, record, PERSISTENT)), "exists");
    assertInvalid(
        write(MOVER, new Op.SetData(NameRoutes.PATH, NameRoutes.NONE.encode(), 3)), "at version 0");
    assertInvalid(write(MOVER, new Op.Delete(NameRoutes.PATH, 0)), "setData at its version");
    assertThat(guard.current().version()).isZero();
  }

  private void assertSequenced(Message.Write write) {
    RouteGuard.Check check = guard.check(write);
    assertThat(check.refusal()).isNull();
    guard.sequenced(check);
  }

  private void assertInvalid(Message.Write write, String why) {
    Message.Error refusal = guard.check(write).refusal();
    assertThat(refusal).isNotNull();
    assertThat(refusal.code()).isEqualTo(ErrorCode.INVALID_OP);
    assertThat(refusal.message()).contains(why);
  }

  private static final CreateMode PERSISTENT = CreateMode.PERSISTENT;
  private static long requestIds;

  private static Message.Write write(long clientId, Op... ops) {
    return new Message.Write(clientId, ++requestIds, List.of(ops));
  }
}
