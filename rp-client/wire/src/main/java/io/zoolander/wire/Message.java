package io.zoolander.wire;

import static io.zoolander.wire.internal.Checks.atLeast;
import static io.zoolander.wire.internal.Checks.checkData;
import static io.zoolander.wire.internal.Checks.checkPath;
import static io.zoolander.wire.internal.Checks.childName;
import static io.zoolander.wire.internal.Checks.describe;
import static io.zoolander.wire.internal.Checks.expectedVersion;
import static io.zoolander.wire.internal.Checks.list;
import static io.zoolander.wire.internal.Checks.notNull;
import static io.zoolander.wire.internal.Checks.truncateUtf8;
import static io.zoolander.wire.internal.Checks.utf8;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;

/**
 * A message of the Zoolander wire protocol; one message is one frame. See the {@linkplain
 * io.zoolander.wire package documentation} for the frame layout and who sends what.
 *
 * <p>Messages are immutable values, validated when built (an invalid field throws {@link
 * IllegalArgumentException} naming it), so a decoded message is always valid too. Client and
 * request ids, epochs and sequence numbers are {@code >= 0}; a sequence number that names a write
 * is {@code >= 1} (a plugin that applied nothing has applied seq 0). Byte arrays are not copied: do
 * not modify one after handing it to a message. Equality compares them by content.
 *
 * <p>{@link Error} shadows {@code java.lang.Error} when imported: refer to it as {@code
 * Message.Error}.
 */
public sealed interface Message {

  /**
   * First message on every connection, in both directions: who the sender is and which protocol
   * version it speaks.
   *
   * @param id a name for logs and routing (a client id, a duplicate id), 1 to {@link
   *     WireSettings#MAX_ID_BYTES} UTF-8 bytes
   * @param protocolVersion the version the sender speaks, 1 to 255
   */
  record Hello(Role role, String id, int protocolVersion) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Hello {
      notNull(role, "role");
      utf8(id, "id", WireSettings.MAX_ID_BYTES);
      if (id.isEmpty()) {
        throw new IllegalArgumentException("id: must not be empty");
      }
      if (protocolVersion < 1 || protocolVersion > 255) {
        throw new IllegalArgumentException(
            "protocolVersion: must be 1 to 255, was " + protocolVersion);
      }
    }

    /** A HELLO for this code's {@link WireSettings#PROTOCOL_VERSION}. */
    public static Hello of(Role role, String id) {
      return new Hello(role, id, WireSettings.PROTOCOL_VERSION);
    }
  }

  /**
   * Client to repeater: apply these ops. More than one op is one atomic multi.
   *
   * @param ops 1 to {@link WireSettings#MAX_OPS_PER_MESSAGE} ops
   */
  record Write(long clientId, long requestId, List<Op> ops) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Write {
      atLeast(clientId, 0, "clientId");
      atLeast(requestId, 0, "requestId");
      ops = list(ops, "ops", 1, WireSettings.MAX_OPS_PER_MESSAGE);
    }

    /** Whether this write is an atomic multi of several ops. */
    public boolean isMulti() {
      return ops.size() > 1;
    }
  }

  /**
   * Repeater to every plugin: the write {@code (clientId, requestId)} is number {@code seq} of
   * {@code epoch}.
   */
  record Sequenced(long epoch, long seq, long clientId, long requestId, List<Op> ops)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Sequenced {
      atLeast(epoch, 0, "epoch");
      atLeast(seq, 1, "seq");
      atLeast(clientId, 0, "clientId");
      atLeast(requestId, 0, "requestId");
      ops = list(ops, "ops", 1, WireSettings.MAX_OPS_PER_MESSAGE);
    }

    /** Sequences {@code write} as number {@code seq} of {@code epoch}. */
    public static Sequenced of(long epoch, long seq, Write write) {
      return new Sequenced(epoch, seq, write.clientId(), write.requestId(), write.ops());
    }
  }

  /**
   * Plugin to client: duplicate {@code duplicateId} applied write {@code requestId} as {@code seq}.
   *
   * @param results one per op of the write, in order
   */
  record Reply(long clientId, long requestId, long seq, int duplicateId, List<OpResult> results)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Reply {
      atLeast(clientId, 0, "clientId");
      atLeast(requestId, 0, "requestId");
      atLeast(seq, 1, "seq");
      atLeast(duplicateId, 0, "duplicateId");
      results = list(results, "results", 1, WireSettings.MAX_OPS_PER_MESSAGE);
    }

    /** The write's outcome as ZooKeeper reports it: OK, or the code of the first failing op. */
    public KeeperException.Code code() {
      for (OpResult r : results) {
        if (r.code() != KeeperException.Code.OK) {
          return r.code();
        }
      }
      return KeeperException.Code.OK;
    }
  }

  /**
   * Plugin to repeater: this duplicate has applied every write up to {@code appliedSeq} of {@code
   * epoch}.
   */
  record Ack(int duplicateId, long epoch, long appliedSeq) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Ack {
      atLeast(duplicateId, 0, "duplicateId");
      atLeast(epoch, 0, "epoch");
      atLeast(appliedSeq, 0, "appliedSeq");
    }
  }

  /**
   * Plugin to repeater: resend the SEQUENCED writes {@code fromSeq..toSeq} (inclusive) of {@code
   * epoch}.
   */
  record Retransmit(int duplicateId, long epoch, long fromSeq, long toSeq) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Retransmit {
      atLeast(duplicateId, 0, "duplicateId");
      atLeast(epoch, 0, "epoch");
      atLeast(fromSeq, 1, "fromSeq");
      atLeast(toSeq, fromSeq, "toSeq");
    }
  }

  /**
   * Client to plugin: read {@code path} once this duplicate has applied at least {@code minSeq}.
   *
   * @param minSeq the highest seq the client has seen (read-your-writes, monotonic reads)
   */
  record Read(long clientId, long requestId, ReadKind kind, String path, long minSeq)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Read {
      atLeast(clientId, 0, "clientId");
      atLeast(requestId, 0, "requestId");
      notNull(kind, "kind");
      checkPath(path, "path", false);
      atLeast(minSeq, 0, "minSeq");
    }
  }

  /**
   * Plugin to client: the answer to a {@link Read}, as of {@code appliedSeq}.
   *
   * @param code {@link KeeperException.Code#OK}, or why the read failed ({@code NONODE} for an
   *     absent node, also for EXISTS)
   * @param data the node's data for GET_DATA, otherwise empty; never null
   * @param version the node's data version ({@code Stat.version}), {@code -1} when the node is
   *     absent
   * @param children the child names for GET_CHILDREN, otherwise empty
   */
  // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode and
  // toString are overridden below to use the array's content.
  @SuppressWarnings("ArrayRecordComponent")
  record ReadReply(
      long clientId,
      long requestId,
      int duplicateId,
      long appliedSeq,
      KeeperException.Code code,
      byte[] data,
      int version,
      List<String> children)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public ReadReply {
      atLeast(clientId, 0, "clientId");
      atLeast(requestId, 0, "requestId");
      atLeast(duplicateId, 0, "duplicateId");
      atLeast(appliedSeq, 0, "appliedSeq");
      notNull(code, "code");
      checkData(data, "data");
      expectedVersion(version, "version");
      children = list(children, "children", 0, Integer.MAX_VALUE);
      for (int i = 0; i < children.size(); i++) {
        childName(children.get(i), "children[" + i + "]");
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof ReadReply r
          && clientId == r.clientId
          && requestId == r.requestId
          && duplicateId == r.duplicateId
          && appliedSeq == r.appliedSeq
          && code == r.code
          && version == r.version
          && Arrays.equals(data, r.data)
          && children.equals(r.children);
    }

    @Override
    public int hashCode() {
      return Objects.hash(clientId, requestId, duplicateId, appliedSeq, code, version, children)
              * 31
          + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
      return "ReadReply[clientId="
          + clientId
          + ", requestId="
          + requestId
          + ", duplicateId="
          + duplicateId
          + ", appliedSeq="
          + appliedSeq
          + ", code="
          + code
          + ", data="
          + describe(data)
          + ", version="
          + version
          + ", children="
          + children
          + "]";
    }
  }

  /**
   * Client to plugin: arm watch {@code watchId} of this connection on {@code path}, for the changes
   * applied after {@code sinceSeq}. The plugin sends a WATCH_EVENT for every write (in seq order)
   * after {@code sinceSeq} that changes what the watch watches: first those it applied already, if
   * it still holds them (else one {@link WatchEventType#RESYNC} at its applied seq), then a {@link
   * WatchEvent} without changes at its applied seq (armed: everything up to it has been sent), then
   * each write as it applies it. A one-shot kind is removed after its first event (and not
   * acknowledged if that was one it missed); a WATCH with the id of an armed watch replaces it. A
   * fenced or rejoining duplicate arms it too (a duplicate that rejoins by a state transfer sends
   * RESYNC). A plugin that will not arm it answers ERROR with {@code requestId = watchId}
   * (INVALID_PATH, UNKNOWN_OP, OVERLOADED for too many watches on the connection).
   *
   * @param watchId the client's name for the watch, {@code >= 0}
   * @param sinceSeq the highest seq whose changes the client needs no event for
   */
  record Watch(long clientId, long watchId, WatchKind kind, String path, long sinceSeq)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Watch {
      atLeast(clientId, 0, "clientId");
      atLeast(watchId, 0, "watchId");
      notNull(kind, "kind");
      checkPath(path, "path", false);
      atLeast(sinceSeq, 0, "sinceSeq");
    }
  }

  /**
   * Client to plugin: remove watch {@code watchId} of this connection (unknown ids are ignored).
   */
  record Unwatch(long clientId, long watchId) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Unwatch {
      atLeast(clientId, 0, "clientId");
      atLeast(watchId, 0, "watchId");
    }
  }

  /**
   * Plugin to client: what write {@code seq} changed that watch {@code watchId} watches, or, with
   * no changes, that the watch is armed as of this duplicate's {@code seq} (every change up to it
   * that concerns the watch has been sent before). Every duplicate sends the same changes for the
   * same seq, so the client delivers the first duplicate's and drops the others.
   *
   * @param seq the write that made the changes ({@code >= 1}), or, when {@code changes} is empty,
   *     the duplicate's applied seq when it armed the watch
   * @param changes 0 to {@link WireSettings#MAX_WATCH_CHANGES}, in the order the write made them
   */
  record WatchEvent(
      long clientId, long watchId, int duplicateId, long seq, List<WatchEvent.Change> changes)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public WatchEvent {
      atLeast(clientId, 0, "clientId");
      atLeast(watchId, 0, "watchId");
      atLeast(duplicateId, 0, "duplicateId");
      changes = list(changes, "changes", 0, WireSettings.MAX_WATCH_CHANGES);
      atLeast(seq, changes.isEmpty() ? 0 : 1, "seq");
    }

    /** Whether this only acknowledges the WATCH: armed, no change yet. */
    public boolean armed() {
      return changes.isEmpty();
    }

    /**
     * One change: its type and the application path of the node it happened to (for {@link
     * WatchEventType#RESYNC}, the watch's path).
     */
    public record Change(WatchEventType type, String path) {
      /**
       * @throws IllegalArgumentException if a field is invalid; the message names it
       */
      public Change {
        notNull(type, "type");
        checkPath(path, "path", false);
      }
    }
  }

  /** Plugin to repeater, client or admin: where this duplicate stands. */
  record Status(int duplicateId, long epoch, long appliedSeq, DuplicateState state)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Status {
      atLeast(duplicateId, 0, "duplicateId");
      atLeast(epoch, 0, "epoch");
      atLeast(appliedSeq, 0, "appliedSeq");
      notNull(state, "state");
    }
  }

  /**
   * Plugin to its clients: planned slowness. The duplicate's server is starting background work
   * that slows it down (a ZooKeeper snapshot, a log roll), so clients leave it out of the read set
   * until the work ends: a second announcement with {@code maxDurationMs == 0}, or {@code
   * maxDurationMs} after this one, whichever comes first (so a lost end cannot keep the duplicate
   * out for good).
   *
   * @param maxDurationMs how long the work may last at most, 1 to {@link
   *     WireSettings#MAX_PLANNED_SLOWNESS_MS}; 0: it ended
   */
  record PlannedSlowness(int duplicateId, long maxDurationMs) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public PlannedSlowness {
      atLeast(duplicateId, 0, "duplicateId");
      atLeast(maxDurationMs, 0, "maxDurationMs");
      if (maxDurationMs > WireSettings.MAX_PLANNED_SLOWNESS_MS) {
        throw new IllegalArgumentException(
            "maxDurationMs: must be at most "
                + WireSettings.MAX_PLANNED_SLOWNESS_MS
                + ", was "
                + maxDurationMs);
      }
    }

    /** Whether this announces the end of the work. */
    public boolean ended() {
      return maxDurationMs == 0;
    }
  }

  /**
   * Server to a peer that said HELLO in a role the server authenticates: prove who you are by
   * answering {@link Auth}. Sent only when authentication is configured (see {@link
   * AccessControl}); a server without it never sends one.
   *
   * @param nonce {@link WireSettings#NONCE_BYTES} random bytes, fresh for every connection
   * @param server the challenging server's name ({@link Credential#REPEATER}, {@link
   *     Credential#duplicate}), 1 to {@link WireSettings#MAX_ID_BYTES} UTF-8 bytes: the proof binds
   *     it, and the peer answers only a server it meant to connect to, so that a proof cannot be
   *     relayed to another server
   */
  // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode and
  // toString are overridden below to use the array's content.
  @SuppressWarnings("ArrayRecordComponent")
  record Challenge(byte[] nonce, String server) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Challenge {
      notNull(nonce, "nonce");
      if (nonce.length != WireSettings.NONCE_BYTES) {
        throw new IllegalArgumentException(
            "nonce: must be " + WireSettings.NONCE_BYTES + " bytes, was " + nonce.length);
      }
      utf8(server, "server", WireSettings.MAX_ID_BYTES);
      if (server.isEmpty()) {
        throw new IllegalArgumentException("server: must not be empty");
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Challenge c && Arrays.equals(nonce, c.nonce) && server.equals(c.server);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(nonce) + server.hashCode();
    }

    @Override
    public String toString() {
      return "Challenge[nonce=" + describe(nonce) + ", server=" + server + "]";
    }
  }

  /**
   * Peer to server, in answer to {@link Challenge}: who the peer is and the proof. A non-empty
   * {@code proof} is the HMAC-SHA256 of the challenge with the principal's shared secret (see
   * {@link Credential}); an empty proof asks the server to take the principal from the peer's
   * verified TLS client certificate, and then {@code principal} is empty too.
   *
   * @param principal up to {@link WireSettings#MAX_PRINCIPAL_BYTES} UTF-8 bytes; empty for a
   *     certificate
   * @param proof {@link WireSettings#PROOF_BYTES} bytes, or empty for a certificate
   */
  // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode and
  // toString are overridden below to use the array's content.
  @SuppressWarnings("ArrayRecordComponent")
  record Auth(String principal, byte[] proof) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Auth {
      utf8(principal, "principal", WireSettings.MAX_PRINCIPAL_BYTES);
      notNull(proof, "proof");
      if (proof.length == 0
          ? !principal.isEmpty()
          : proof.length != WireSettings.PROOF_BYTES || principal.isEmpty()) {
        throw new IllegalArgumentException(
            "proof: must be "
                + WireSettings.PROOF_BYTES
                + " bytes with a principal, or"
                + " empty with an empty principal (certificate); was "
                + proof.length
                + " bytes with principal '"
                + principal
                + "'");
      }
    }

    /** Whether this AUTH asks to be authenticated by the TLS client certificate. */
    public boolean byCertificate() {
      return proof.length == 0;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Auth a && principal.equals(a.principal) && Arrays.equals(proof, a.proof);
    }

    @Override
    public int hashCode() {
      return principal.hashCode() * 31 + Arrays.hashCode(proof);
    }

    @Override
    public String toString() {
      return "Auth[principal="
          + principal
          + ", proof="
          + proof.length
          + " bytes]"; // never log a proof
    }
  }

  /**
   * Repeater to a healthy plugin: take a consistent snapshot of this duplicate's data root and
   * client records, between two applied writes, and send it back on this connection as {@link
   * TransferChunk}s, for the state transfer that brings duplicate {@code targetDuplicateId} back. A
   * plugin that cannot answers ERROR (TRANSFER_TOO_LARGE, TRANSFER_FAILED) with {@code requestId =
   * transferId}.
   *
   * @param transferId names the transfer in its chunks and errors ({@code >= 0})
   * @param targetDuplicateId the duplicate the snapshot is for (for logs)
   */
  record TransferRequest(long transferId, int targetDuplicateId) implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public TransferRequest {
      atLeast(transferId, 0, "transferId");
      atLeast(targetDuplicateId, 0, "targetDuplicateId");
    }
  }

  /**
   * One bounded piece of a state transfer's snapshot: from the healthy plugin to the repeater,
   * which relays it to the plugin of the duplicate that rejoins. The chunks of one transfer carry
   * the same header and consecutive {@code index}es from 0 to {@code chunkCount - 1}; the {@link
   * #last()} one completes it. Parents come before their children. The source builds the whole
   * snapshot before it sends the first chunk, so every chunk knows how many there are: the repeater
   * reports a transfer's progress and its remaining time from it.
   *
   * @param transferId the transfer ({@link TransferRequest#transferId()})
   * @param sourceDuplicateId the duplicate the snapshot was taken of
   * @param epoch the source's recorded epoch at the snapshot
   * @param appliedSeq the seq the snapshot is the state after: the rejoining duplicate follows the
   *     stream from the next
   * @param catchUpToSeq the rejoining duplicate serves no reads until it has applied this seq
   *     ({@code >= appliedSeq}; the repeater sets it to its last sequenced seq when it relays the
   *     last chunk)
   * @param index the chunk's position in the transfer, from 0
   * @param chunkCount how many chunks the transfer has ({@code > index})
   * @param nodes the znodes of this chunk
   */
  record TransferChunk(
      long transferId,
      int sourceDuplicateId,
      long epoch,
      long appliedSeq,
      long catchUpToSeq,
      int index,
      int chunkCount,
      List<Node> nodes)
      implements Message {
    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public TransferChunk {
      atLeast(transferId, 0, "transferId");
      atLeast(sourceDuplicateId, 0, "sourceDuplicateId");
      atLeast(epoch, 0, "epoch");
      atLeast(appliedSeq, 0, "appliedSeq");
      atLeast(catchUpToSeq, appliedSeq, "catchUpToSeq");
      atLeast(index, 0, "index");
      atLeast(chunkCount, index + 1L, "chunkCount");
      nodes = list(nodes, "nodes", 0, WireSettings.MAX_TRANSFER_NODES_PER_CHUNK);
    }

    /** Whether this chunk completes the snapshot: the one at {@code chunkCount - 1}. */
    public boolean last() {
      return index == chunkCount - 1;
    }

    /** The same chunk with another {@link #catchUpToSeq()}. */
    public TransferChunk withCatchUpToSeq(long seq) {
      return new TransferChunk(
          transferId, sourceDuplicateId, epoch, appliedSeq, seq, index, chunkCount, nodes);
    }

    /**
     * One znode of the snapshot: its full path (under the data root or the client records' parent),
     * its data, and the data version and child version it has at the source, which the rejoining
     * duplicate reproduces.
     */
    // The array is handed over without copying (a frame's bytes, decoded once); equals, hashCode
    // and
    // toString are overridden below to use the array's content.
    @SuppressWarnings("ArrayRecordComponent")
    public record Node(String path, byte[] data, int version, int cversion) {
      /**
       * @throws IllegalArgumentException if a field is invalid; the message names it
       */
      public Node {
        checkPath(path, "path", false);
        checkData(data, "data");
        atLeast(version, 0, "version");
        atLeast(cversion, 0, "cversion");
      }

      @Override
      public boolean equals(Object o) {
        return o instanceof Node n
            && n.path.equals(path)
            && Arrays.equals(n.data, data)
            && n.version == version
            && n.cversion == cversion;
      }

      @Override
      public int hashCode() {
        return Objects.hash(path, Arrays.hashCode(data), version, cversion);
      }

      @Override
      public String toString() {
        return "Node["
            + path
            + ", "
            + data.length
            + " bytes, version "
            + version
            + ", cversion "
            + cversion
            + "]";
      }
    }
  }

  /**
   * Any direction: a frame was rejected (protocol codes; the sender then closes the connection) or
   * a request was refused (application codes). Its layout is frozen, so a peer of any protocol
   * version can read it.
   *
   * @param requestId the refused request, or {@link #NO_REQUEST}
   * @param retryAfterMillis when {@link ErrorCode#OVERLOADED}, how long to wait before retrying;
   *     otherwise 0
   * @param message a human-readable reason; truncated to {@link
   *     WireSettings#MAX_ERROR_MESSAGE_BYTES} UTF-8 bytes
   */
  // The wire's message is named ERROR; code always names it Message.Error (never imported alone),
  // so it cannot be mistaken for java.lang.Error, and renaming it would change the public API.
  @SuppressWarnings("JavaLangClash")
  record Error(ErrorCode code, long requestId, long retryAfterMillis, String message)
      implements Message {
    /** The {@code requestId} of an error that answers no particular request. */
    public static final long NO_REQUEST = -1;

    /**
     * @throws IllegalArgumentException if a field is invalid; the message names it
     */
    public Error {
      notNull(code, "code");
      atLeast(requestId, NO_REQUEST, "requestId");
      atLeast(retryAfterMillis, 0, "retryAfterMillis");
      message = truncateUtf8(notNull(message, "message"), WireSettings.MAX_ERROR_MESSAGE_BYTES);
    }

    /** An error about the connection, not a request. */
    public static Error of(ErrorCode code, String message) {
      return new Error(code, NO_REQUEST, 0, message);
    }

    /** An error refusing request {@code requestId}. */
    public static Error forRequest(ErrorCode code, long requestId, String message) {
      return new Error(code, requestId, 0, message);
    }
  }
}
