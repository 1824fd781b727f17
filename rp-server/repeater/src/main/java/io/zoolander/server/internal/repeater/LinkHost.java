package io.zoolander.server.internal.repeater;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import java.util.function.Supplier;

/**
 * The repeater as one {@link DuplicateLink} sees it: what a link needs to connect to its plugin,
 * stream from the log and report what happened, and nothing else. {@link RepeaterCore} implements
 * it over its parts ({@link NettyRuntime}, {@link Sequencer}, {@link Transfers}, {@link Notifier}).
 *
 * <p>Every method is called on the sequencer loop, the link's own thread.
 */
interface LinkHost {

  // ------------------------------------------------------------------------------ connecting

  /**
   * The sequencer loop: the link's connection is registered on it and its timers (handshake,
   * reconnect) are scheduled there.
   */
  EventLoop loop();

  /**
   * Connects to a plugin on the sequencer loop (TLS if configured, the wire pipeline, then a
   * handler from {@code handler}).
   */
  ChannelFuture connectPlugin(PluginEndpoint endpoint, Supplier<ChannelHandler> handler);

  /** The credential shown to a plugin that challenges the repeater; null if it has none. */
  Credential credential();

  // ------------------------------------------------------------------------------ the sequence

  /** The retransmission log to stream and retransmit from (the link never changes it). */
  RetransmissionLog log();

  /** This repeater's epoch: a plugin reporting a higher one means a newer repeater exists. */
  long epoch();

  /**
   * The highest seq any duplicate had applied when this repeater claimed its epoch: every write
   * after it that a duplicate applies is this repeater's, stamped with its epoch. A plugin
   * reporting more under an older epoch applied writes of a deposed repeater (it was rolled back,
   * say restored from a backup, and lost this repeater's claim): it must be fenced, not resumed.
   */
  long claimedSeq();

  /** Whether the repeater is closing or deposed: links stop connecting. */
  boolean stopped();

  /** The duplicate's plugin says a newer repeater exists: stop sequencing for good. */
  void depose(int duplicateId, String reason);

  /** The duplicate acknowledged more: the log may be trimmed. */
  void acked();

  /**
   * The link fenced its duplicate (it has already closed its connection): the log no longer waits
   * for it, the listener hears of it, transfers it was the source of fail, and, if {@code
   * rejoinable}, it is rejoined by state transfer shortly when the repeater is configured to.
   */
  void fenced(DuplicateLink link, String reason, boolean rejoinable);

  /** The link's connection is gone or dropped: transfers it was the source of fail. */
  void streamLost(DuplicateLink link);

  // ------------------------------------------------------------------------------ transfers

  /** A snapshot chunk from this link's plugin (the source of a transfer), to relay. */
  void chunk(DuplicateLink from, Message.TransferChunk chunk);

  /** An ERROR about a transfer from this link's plugin (its source or target). */
  void transferError(DuplicateLink from, Message.Error error);

  /** The transfer to this link ended, done ({@code failure} null) or failed; the link let it go. */
  void transferEnded(Transfer transfer, String failure);

  // ------------------------------------------------------------------------------ the listener

  /** The duplicate's endpoint, link state or fencing changed (a snapshot taken on the loop). */
  void changed(DuplicateView view);

  /** The plugin sent an ERROR the link does not handle itself. */
  void pluginError(int duplicateId, ErrorCode code, String message);
}
