package io.zoolander.server.internal.repeater;

import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.NameRoutes;
import io.zoolander.wire.NameRoutes.Versioned;
import io.zoolander.wire.Op;
import java.util.Objects;
import org.apache.zookeeper.CreateMode;

/**
 * The partition's route record ({@link NameRoutes}) as of the last seq sequenced, and the check of
 * every WRITE against it before it is sequenced: a write naming a name frozen or moved by another
 * client is refused (NAME_FROZEN, NAME_MOVED), and a write of the record itself must be a valid
 * change of the current record, alone in its write, at its current version; it takes effect for the
 * writes sequenced after it.
 *
 * <p>Exact because every change of the record is sequenced here and applied by every duplicate in
 * seq order: a change this guard accepts always applies (a create while the record is absent, a
 * {@code setData} at the version the duplicates will hold), so the record the duplicates hold at
 * seq s is the one this guard held after sequencing s. A repeater taking over starts from the
 * record of the most advanced duplicate it claimed, which has applied every write it will recover.
 *
 * <p>Owned by the sequencer loop; built on the starting thread before the loop sequences.
 */
final class RouteGuard {

  /** How long a client waits before sending a write to a frozen name again. */
  static final long FROZEN_RETRY_AFTER_MILLIS = 20;

  /**
   * What to do with one WRITE: refuse it with {@code refusal}, or sequence it and then, if {@code
   * adopt} is not null, hold that record.
   */
  record Check(Message.Error refusal, Versioned adopt) {
    static final Check SEQUENCE = new Check(null, null);
  }

  private Versioned current;

  RouteGuard(Versioned start) {
    this.current = Objects.requireNonNull(start, "start");
  }

  /** The record as of the last seq sequenced. */
  Versioned current() {
    return current;
  }

  /** Checks {@code write} against the record; pure. */
  Check check(Message.Write write) {
    boolean routed = !current.routes().routes().isEmpty();
    for (Op op : write.ops()) {
      String path = op.path();
      if (path.startsWith(NameRoutes.PATH)
          && (path.length() == NameRoutes.PATH.length()
              || path.charAt(NameRoutes.PATH.length()) == '/')) {
        return changeOf(write);
      }
      if (routed) { // else nothing to look up: no allocation on the write path
        ErrorCode refused = current.routes().refusal(path, write.clientId());
        if (refused != null) {
          return new Check(refusal(write, refused, NameRoutes.topLevelName(path)), null);
        }
      }
    }
    return Check.SEQUENCE;
  }

  /** Holds {@code check}'s record once its write is sequenced. */
  void sequenced(Check check) {
    if (check.adopt() != null) {
      current = check.adopt();
    }
  }

  private Message.Error refusal(Message.Write write, ErrorCode code, String name) {
    NameRoutes.Route route = current.routes().route(name).orElseThrow();
    return code == ErrorCode.NAME_MOVED
        ? Message.Error.forRequest(
            code,
            write.requestId(),
            route.describe(name) + "; this partition's " + NameRoutes.PATH + " says so")
        : new Message.Error(
            code,
            write.requestId(),
            FROZEN_RETRY_AFTER_MILLIS,
            route.describe(name) + ": retry once the move is done");
  }

  private Check changeOf(Message.Write write) {
    if (write.ops().size() != 1) {
      return invalid(write, "a change of " + NameRoutes.PATH + " must be a write of its own");
    }
    Op op = write.ops().get(0);
    if (!op.path().equals(NameRoutes.PATH)) {
      return invalid(write, NameRoutes.PATH + " has no children");
    }
    byte[] data;
    if (op instanceof Op.Create create && create.mode() == CreateMode.PERSISTENT) {
      if (current.version() >= 0) {
        return invalid(
            write, NameRoutes.PATH + " exists (version " + current.version() + "): set it instead");
      }
      data = create.data();
    } else if (op instanceof Op.SetData set) {
      if (current.version() < 0) {
        return invalid(write, NameRoutes.PATH + " does not exist yet: create it");
      }
      if (set.version() != current.version()) {
        return invalid(
            write,
            NameRoutes.PATH
                + " is at version "
                + current.version()
                + ", the change was made against version "
                + set.version()
                + ": read it again");
      }
      data = set.data();
    } else {
      return invalid(
          write,
          NameRoutes.PATH + " is changed only by a persistent create or a setData at its version");
    }
    NameRoutes next;
    try {
      next = NameRoutes.decode(data);
    } catch (IllegalArgumentException e) {
      return invalid(write, e.getMessage());
    }
    String why = current.routes().change(next, write.clientId());
    if (why != null) {
      return invalid(write, NameRoutes.PATH + ": " + why);
    }
    return new Check(null, new Versioned(next, current.version() + 1));
  }

  private static Check invalid(Message.Write write, String message) {
    return new Check(
        Message.Error.forRequest(ErrorCode.INVALID_OP, write.requestId(), message), null);
  }
}
