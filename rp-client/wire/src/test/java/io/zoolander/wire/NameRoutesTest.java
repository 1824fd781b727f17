package io.zoolander.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zoolander.wire.NameRoutes.Frozen;
import io.zoolander.wire.NameRoutes.Moved;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NameRoutesTest {
  private static final long MOVER = 7;
  private static final long OTHER = 8;

  @Test
  void roundTripsAsReadableTextWithSpacesInNames() {
    NameRoutes r =
        NameRoutes.NONE
            .with("users", new Frozen(MOVER, 0, 1))
            .with("old orders", new Moved(2, 40, 9));
    String text = new String(r.encode(), StandardCharsets.UTF_8);
    assertThat(text).isEqualTo("zoolander-routes 1\nmoved 9 2 40 old orders\nfrozen 7 0 1 users\n");
    assertThat(NameRoutes.decode(r.encode())).isEqualTo(r);
    assertThat(NameRoutes.decode(NameRoutes.NONE.encode())).isEqualTo(NameRoutes.NONE);
  }

  @Test
  void malformedRecordsAreRefusedNamingTheLine() {
    assertThatThrownBy(() -> NameRoutes.decode("x\n".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("first line");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen x 0 1 users\n"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen 1 users\n"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen 1 2 2 users\n"))
        .hasMessageContaining("two partitions");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nmoved 1 2 users\n"))
        .hasMessageContaining("line 2");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen 1 0 1 a\nfrozen 2 0 1 a\n"))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen 1 0 1 a/b\n"))
        .hasMessageContaining("one path component");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nfrozen 1 0 1 a"))
        .hasMessageContaining("does not end");
    assertThatThrownBy(() -> decode("zoolander-routes 1\nmoved 1 -2 3 a\n"))
        .hasMessageContaining("partition must be >= 0");
    assertThatThrownBy(() -> NameRoutes.NONE.with(NameRoutes.NAME, new Frozen(1, 0, 1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void refusesOtherClientsThanTheMover() {
    NameRoutes r =
        NameRoutes.NONE.with("a", new Frozen(MOVER, 0, 1)).with("b", new Moved(1, 5, MOVER));
    assertThat(r.refusal("/a/x", OTHER)).isEqualTo(ErrorCode.NAME_FROZEN);
    assertThat(r.refusal("/a", OTHER)).isEqualTo(ErrorCode.NAME_FROZEN);
    assertThat(r.refusal("/b/x/y", OTHER)).isEqualTo(ErrorCode.NAME_MOVED);
    assertThat(r.refusal("/a/x", MOVER)).isNull();
    assertThat(r.refusal("/b", MOVER)).isNull();
    assertThat(r.refusal("/ab", OTHER)).isNull();
    assertThat(r.refusal("/", OTHER)).isNull();
  }

  @Test
  void aChangeIsOneNameThroughTheMoversSteps() {
    NameRoutes frozen = NameRoutes.NONE.with("a", new Frozen(MOVER, 0, 1));
    NameRoutes moved = NameRoutes.NONE.with("a", new Moved(1, 10, MOVER));
    assertThat(NameRoutes.NONE.change(frozen, MOVER)).isNull();
    assertThat(frozen.change(moved, MOVER)).isNull();
    assertThat(frozen.change(NameRoutes.NONE, MOVER)).isNull(); // given up, or copied in
    assertThat(moved.change(NameRoutes.NONE.with("a", new Frozen(OTHER, 0, 1)), OTHER))
        .isNull(); // moving back in

    assertThat(NameRoutes.NONE.change(frozen, OTHER)).contains("for itself only");
    NameRoutes takenOver = NameRoutes.NONE.with("a", new Frozen(OTHER, 0, 1));
    assertThat(frozen.change(takenOver, OTHER)).as("the same move, taken over").isNull();
    assertThat(takenOver.change(NameRoutes.NONE, OTHER)).isNull();
    assertThat(frozen.change(takenOver, MOVER)).contains("for itself only");
    assertThat(frozen.change(NameRoutes.NONE.with("a", new Frozen(OTHER, 0, 2)), OTHER))
        .contains("frozen by client 7 (a move from 0 to 1) already");
    assertThat(frozen.change(NameRoutes.NONE.with("a", new Frozen(MOVER, 1, 0)), MOVER))
        .contains("already");
    assertThat(frozen.change(moved, OTHER)).contains("own freeze");
    assertThat(frozen.change(NameRoutes.NONE.with("a", new Moved(1, 10, OTHER)), MOVER))
        .contains("must stay client 7");
    assertThat(moved.change(NameRoutes.NONE, MOVER)).contains("moved to partition 1");
    assertThat(NameRoutes.NONE.change(moved, MOVER)).contains("served here");
    assertThat(frozen.change(frozen, MOVER)).contains("changes nothing");
    assertThat(
            NameRoutes.NONE.change(
                new NameRoutes(Map.of("a", new Frozen(MOVER, 0, 1), "b", new Frozen(MOVER, 0, 1))),
                MOVER))
        .contains("changes a and b");
  }

  @Test
  void theTopLevelNameOfAPath() {
    assertThat(NameRoutes.topLevelName("/users/42")).isEqualTo("users");
    assertThat(NameRoutes.topLevelName("/users")).isEqualTo("users");
    assertThat(NameRoutes.topLevelName("/")).isNull();
  }

  private static NameRoutes decode(String text) {
    return NameRoutes.decode(text.getBytes(StandardCharsets.UTF_8));
  }
}
