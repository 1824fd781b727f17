package io.zoolander.server.internal.plugin;

import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import java.util.ArrayList;
import java.util.List;

/**
 * The reads a partition's route record ({@link NameRoutes}) refuses: a read of a name that has
 * moved to another partition gets NAME_MOVED (its mover's own reads excepted), and the root's
 * children leave out the moved names and the record itself. A frozen name is read as usual: its
 * data does not change while it is copied.
 *
 * <p>The record passed in must be the one of the same state as the data read (the tree reader reads
 * both in one validated attempt; the session reads the record after the data, with nothing applied
 * between). Thread-safe: the last decoded record is cached by the array ZooKeeper holds, which a
 * setData replaces and never modifies.
 */
final class MovedNames {

  private record Decoded(byte[] bytes, NameRoutes routes) {}

  private volatile Decoded last = new Decoded(null, NameRoutes.NONE);

  /**
   * Why {@code read} must not be answered with the data read at the same state as {@code record},
   * or null if it may be.
   *
   * @param record the route record's bytes, null if there is none
   */
  Message.Error refusal(Message.Read read, byte[] record) {
    if (record == null) {
      return null; // no name routed away: the usual case, without a lookup
    }
    NameRoutes routes;
    try {
      routes = routes(record);
    } catch (IllegalArgumentException e) {
      return unreadable(read, e);
    }
    String name = NameRoutes.topLevelName(read.path());
    NameRoutes.Route route = name == null ? null : routes.route(name).orElse(null);
    if (route instanceof NameRoutes.Moved moved && moved.moverClientId() != read.clientId()) {
      return Message.Error.forRequest(ErrorCode.NAME_MOVED, read.requestId(), moved.describe(name));
    }
    return null;
  }

  /**
   * The children of the root a client sees: without {@link NameRoutes#NAME} and the names moved
   * away. {@code children} is returned as is for any other path, or when nothing is routed.
   */
  List<String> visibleChildren(Message.Read read, List<String> children, byte[] record) {
    if (record == null || !"/".equals(read.path())) {
      return children;
    }
    NameRoutes routes = routes(record); // refusal() was asked first: it decodes
    List<String> visible = new ArrayList<>(children.size());
    for (String child : children) {
      if (!child.equals(NameRoutes.NAME)
          && !(routes.route(child).orElse(null) instanceof NameRoutes.Moved)) {
        visible.add(child);
      }
    }
    return visible;
  }

  private NameRoutes routes(byte[] record) {
    Decoded d = last;
    if (d.bytes() != record) {
      d = new Decoded(record, NameRoutes.decode(record));
      last = d;
    }
    return d.routes();
  }

  /**
   * The record was written outside Zoolander (the repeater refuses any write of it that does not
   * decode): no read can be checked, so none is answered, loudly.
   */
  private static Message.Error unreadable(Message.Read read, IllegalArgumentException e) {
    return Message.Error.forRequest(
        ErrorCode.INTERNAL,
        read.requestId(),
        NameRoutes.PATH
            + " cannot be read, so no read can be checked against it (written outside"
            + " Zoolander?): "
            + e.getMessage());
  }
}
