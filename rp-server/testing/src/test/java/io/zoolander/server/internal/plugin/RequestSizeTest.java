package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.internal.zk.RequestSize;
import io.zoolander.server.internal.zk.ZkOps;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ClientRecord;
import io.zoolander.wire.Op;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.Znodes;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The repeater's check that a write fits one ZooKeeper request, against what the plugin will send.
 */
class RequestSizeTest {
  private static final Znodes ZNODES = Znodes.defaults();
  private static final ClientTable CLIENTS = new ClientTable(ZNODES);
  private static final int JUTE = RepeaterSettings.DEFAULT_JUTE_MAX_BUFFER_BYTES;

  private static List<Op> setData(int bytes) {
    return List.of(Op.setData("/app/value", new byte[bytes], -1));
  }

  @Test
  void smallWritesFitAndAMebibyteOfDataDoesNotFitZooKeepersDefault() {
    assertThat(RequestSize.fitsInOneRequest(ZNODES, 7, setData(100), JUTE)).isTrue();
    assertThat(RequestSize.fitsInOneRequest(ZNODES, 7, setData(WireSettings.MAX_DATA_BYTES), JUTE))
        .isFalse();
    assertThat(
            RequestSize.fitsInOneRequest(
                ZNODES, 7, setData(WireSettings.MAX_DATA_BYTES), 4 * 1024 * 1024))
        .isTrue();
  }

  /**
   * The largest write the repeater passes fits in the plugin's multi, in either form of the record
   * update.
   */
  @Test
  void whatTheRepeaterPassesThePluginCanApply() {
    int low = 0;
    int high = JUTE;
    while (low < high) { // the largest data size the repeater accepts
      int mid = (low + high + 1) >>> 1;
      if (RequestSize.fitsInOneRequest(ZNODES, Long.MAX_VALUE, setData(mid), JUTE)) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    int largest = low;
    assertThat(largest)
        .isBetween(JUTE - 2 * RequestSize.HEADROOM_BYTES, JUTE - RequestSize.HEADROOM_BYTES);

    byte[] smallest = new ClientRecord(Long.MAX_VALUE, List.of()).encode();
    for (ClientTable.Known known :
        List.of(
            new ClientTable.Known(null, ClientTable.ABSENT),
            new ClientTable.Known(null, Integer.MAX_VALUE))) {
      List<org.apache.zookeeper.Op> multi =
          ZkOps.multi(
              ZNODES,
              new BookkeepingState(Long.MAX_VALUE, Long.MAX_VALUE),
              Integer.MAX_VALUE,
              CLIENTS.update(Long.MAX_VALUE, known, smallest),
              setData(largest));
      assertThat(ZkOps.requestBytes(multi)).isLessThanOrEqualTo(JUTE - RequestSize.HEADROOM_BYTES);
      assertThat(ZkOps.fitsInOneRequest(multi, setData(largest), smallest.length, JUTE)).isTrue();
    }
  }
}
