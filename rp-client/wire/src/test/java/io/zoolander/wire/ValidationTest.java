package io.zoolander.wire;

import static io.zoolander.wire.WireTestSupport.repeat;
import static io.zoolander.wire.WireTestSupport.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Messages and ops are validated when built, with messages naming the field, and compare data by
 * content.
 */
class ValidationTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "a", "/a/", "/a//b", "/./a", "/a\u0000b"})
  void opsRejectInvalidPaths(String path) {
    assertThatThrownBy(() -> Op.create(path, new byte[0])).hasMessageStartingWith("path: ");
    assertThatThrownBy(() -> Op.setData(path, new byte[0], -1)).hasMessageStartingWith("path: ");
    assertThatThrownBy(() -> Op.delete(path, -1)).hasMessageStartingWith("path: ");
    assertThatThrownBy(() -> Op.check(path, -1)).hasMessageStartingWith("path: ");
  }

  @Test
  void nullFieldsAreNamed() {
    assertThatThrownBy(() -> Op.create(null, new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("path: must not be null");
    assertThatThrownBy(() -> Op.create("/a", null)).hasMessage("data: must not be null");
    assertThatThrownBy(() -> new Op.Create("/a", new byte[0], null))
        .hasMessage("mode: must not be null");
    assertThatThrownBy(() -> new Message.Write(1, 1, null)).hasMessage("ops: must not be null");
    assertThatThrownBy(() -> new Message.Write(1, 1, Arrays.asList(Op.delete("/a", 1), null)))
        .hasMessage("ops[1]: must not be null");
    assertThatThrownBy(() -> new Message.Read(1, 1, null, "/a", 0))
        .hasMessage("kind: must not be null");
  }

  @Test
  void sequentialCreateMayEndInSlashButOthersMayNot() {
    assertThat(Op.createSequential("/queue/", new byte[0]).path()).isEqualTo("/queue/");
    assertThatThrownBy(() -> Op.create("/queue/", new byte[0])).hasMessageStartingWith("path: ");
  }

  @Test
  void ephemeralContainerAndTtlNodesAreRejected() {
    for (CreateMode mode : WireTestSupport.unsupportedModes()) {
      assertThatThrownBy(() -> new Op.Create("/e", new byte[0], mode))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("mode: " + mode)
          .hasMessageContaining("PERSISTENT or PERSISTENT_SEQUENTIAL");
    }
  }

  @Test
  void versionsFollowZooKeeper() {
    assertThat(Op.setData("/a", new byte[0], -1).version()).isEqualTo(-1);
    assertThat(Op.check("/a", 0).version()).isZero();
    assertThatThrownBy(() -> Op.setData("/a", new byte[0], -2)).hasMessageStartingWith("version: ");
    assertThatThrownBy(() -> Op.delete("/a", Integer.MIN_VALUE))
        .hasMessageStartingWith("version: ");
    assertThatThrownBy(() -> Op.check("/a", -5)).hasMessageStartingWith("version: ");
  }

  @Test
  void dataIsBounded() {
    byte[] max = new byte[WireSettings.MAX_DATA_BYTES];
    assertThat(Op.create("/a", max).data()).hasSize(WireSettings.MAX_DATA_BYTES);
    assertThatThrownBy(() -> Op.setData("/a", new byte[WireSettings.MAX_DATA_BYTES + 1], -1))
        .hasMessageStartingWith("data: 1048577 bytes exceed");
  }

  @Test
  void opCountIsBounded() {
    List<Op> ops = new ArrayList<>();
    for (int i = 0; i <= WireSettings.MAX_OPS_PER_MESSAGE; i++) {
      ops.add(Op.delete("/a", -1));
    }
    assertThatThrownBy(() -> new Message.Write(1, 1, ops))
        .hasMessageStartingWith("ops: must hold 1 to 1000");
    assertThatThrownBy(() -> new Message.Write(1, 1, List.of()))
        .hasMessageStartingWith("ops: must hold 1 to 1000");
    assertThat(new Message.Write(1, 1, ops.subList(0, WireSettings.MAX_OPS_PER_MESSAGE)).isMulti())
        .isTrue();
  }

  @Test
  void messageListsAreImmutableCopies() {
    List<Op> ops = new ArrayList<>(List.of(Op.delete("/a", -1)));
    Message.Write write = new Message.Write(1, 1, ops);
    ops.add(Op.delete("/b", -1));

    assertThat(write.ops()).hasSize(1);
    assertThatThrownBy(() -> write.ops().add(Op.delete("/c", -1)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void numbersAreRangeChecked() {
    assertThatThrownBy(() -> new Message.Write(-1, 1, List.of(Op.delete("/a", -1))))
        .hasMessage("clientId: must be >= 0, was -1");
    assertThatThrownBy(() -> new Message.Sequenced(0, 0, 1, 1, List.of(Op.delete("/a", -1))))
        .hasMessageStartingWith("seq: ");
    assertThatThrownBy(() -> new Message.Retransmit(0, 0, 5, 4))
        .hasMessage("toSeq: must be >= 5, was 4");
    assertThatThrownBy(() -> new Message.Ack(-1, 0, 0)).hasMessageStartingWith("duplicateId: ");
    assertThatThrownBy(() -> new Message.Read(0, 0, ReadKind.EXISTS, "/a", -1))
        .hasMessageStartingWith("minSeq: ");
    assertThatThrownBy(() -> new Message.Hello(Role.CLIENT, "c", 0))
        .hasMessageStartingWith("protocolVersion: ");
    assertThatThrownBy(() -> new Message.Error(ErrorCode.OVERLOADED, -2, 0, ""))
        .hasMessageStartingWith("requestId");
    assertThatThrownBy(() -> new Message.Error(ErrorCode.OVERLOADED, 1, -1, ""))
        .hasMessageStartingWith("retryAfter");
    assertThatThrownBy(() -> new OpResult.DataSet(-1)).hasMessageStartingWith("version: ");
  }

  @Test
  void helloIdIsBounded() {
    assertThatThrownBy(() -> Message.Hello.of(Role.CLIENT, "")).hasMessage("id: must not be empty");
    assertThatThrownBy(
            () -> Message.Hello.of(Role.CLIENT, repeat("é", WireSettings.MAX_ID_BYTES / 2 + 1)))
        .hasMessage("id: 258 UTF-8 bytes exceed the limit of 256");
    assertThat(Message.Hello.of(Role.PLUGIN, "p").protocolVersion())
        .isEqualTo(WireSettings.PROTOCOL_VERSION);
  }

  @Test
  void childNamesAreChecked() {
    assertThatThrownBy(
            () -> new Message.ReadReply(0, 0, 0, 0, Code.OK, new byte[0], 0, List.of("ok", "")))
        .hasMessageStartingWith("children[1]: ");
  }

  @Test
  void longErrorMessagesAreTruncatedWithoutSplittingACharacter() {
    String longText = repeat("€", WireSettings.MAX_ERROR_MESSAGE_BYTES); // 3 bytes each
    String withSupplementary =
        "x" + repeat("\uD83D\uDE00", WireSettings.MAX_ERROR_MESSAGE_BYTES); // 4 bytes each

    String truncated = Message.Error.of(ErrorCode.INTERNAL, longText).message();
    String truncated2 = Message.Error.of(ErrorCode.INTERNAL, withSupplementary).message();

    assertThat(truncated.getBytes(StandardCharsets.UTF_8))
        .hasSize(WireSettings.MAX_ERROR_MESSAGE_BYTES / 3 * 3);
    assertThat(truncated2.getBytes(StandardCharsets.UTF_8))
        .hasSize(1 + (WireSettings.MAX_ERROR_MESSAGE_BYTES - 1) / 4 * 4);
    assertThat(Character.isHighSurrogate(truncated2.charAt(truncated2.length() - 1))).isFalse();
  }

  @Test
  void recordsWithDataCompareItByContent() {
    assertThat(Op.create("/a", utf8("x")))
        .isEqualTo(Op.create("/a", utf8("x")))
        .hasSameHashCodeAs(Op.create("/a", utf8("x")))
        .isNotEqualTo(Op.create("/a", utf8("y")))
        .isNotEqualTo(Op.createSequential("/a", utf8("x")));
    assertThat(Op.setData("/a", utf8("x"), 1))
        .isEqualTo(Op.setData("/a", utf8("x"), 1))
        .hasSameHashCodeAs(Op.setData("/a", utf8("x"), 1))
        .isNotEqualTo(Op.setData("/a", utf8("x"), 2));
    Message.ReadReply r = new Message.ReadReply(1, 2, 3, 4, Code.OK, utf8("d"), 5, List.of("c"));
    assertThat(r)
        .isEqualTo(new Message.ReadReply(1, 2, 3, 4, Code.OK, utf8("d"), 5, List.of("c")))
        .hasSameHashCodeAs(new Message.ReadReply(1, 2, 3, 4, Code.OK, utf8("d"), 5, List.of("c")))
        .isNotEqualTo(new Message.ReadReply(1, 2, 3, 4, Code.OK, utf8("e"), 5, List.of("c")));
    assertThat(Op.create("/a", new byte[40]).toString()).contains("40 bytes 0x0000", "...");
    assertThat(r.toString()).contains("1 bytes 0x64", "children=[c]");
  }

  @Test
  void replyCodeIsTheFirstFailureLikeZooKeeper() {
    Message.Reply ok =
        new Message.Reply(1, 1, 1, 0, List.of(new OpResult.Created("/a"), new OpResult.Checked()));
    Message.Reply failed =
        new Message.Reply(
            1,
            1,
            1,
            0,
            List.of(
                new OpResult.Failed(Code.OK),
                new OpResult.Failed(Code.BADVERSION),
                new OpResult.Failed(Code.RUNTIMEINCONSISTENCY)));

    assertThat(ok.code()).isEqualTo(Code.OK);
    assertThat(failed.code()).isEqualTo(Code.BADVERSION);
  }

  @Test
  void enumCodesAreStableAndDistinct() {
    assertThat(Arrays.stream(Role.values()).mapToInt(Role::code)).containsExactly(1, 2, 3, 4);
    assertThat(Arrays.stream(ReadKind.values()).mapToInt(ReadKind::code)).containsExactly(1, 2, 3);
    assertThat(Arrays.stream(DuplicateState.values()).mapToInt(DuplicateState::code))
        .containsExactly(1, 2, 3, 4, 5);
    assertThat(Arrays.stream(ErrorCode.values()).mapToInt(ErrorCode::code))
        .containsExactly(
            1, 2, 3, 4, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 120,
            121, 122, 123, 124, 125);
    assertThatThrownBy(() -> Role.fromCode(0)).hasMessage("role: unknown code 0");
  }
}
