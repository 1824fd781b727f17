package io.zoolander.server.internal.repeater;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.Future;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.wire.Credential;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.PluginEndpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The duplicates' links as a group, and the repeater as each link sees it: implements {@link
 * LinkHost} by handing every call to the part that owns it ({@link NettyRuntime}, {@link
 * Sequencer}, {@link Transfers}, {@link Notifier}), and deposes the repeater when a link hears of a
 * newer one. Also what the repeater asks of all links at once: snapshots, counts, the predictor's
 * samples, ACK timeouts, draining and shutting down.
 *
 * <p>The {@link LinkHost} methods, {@link #checkAcks}, {@link #drain} and {@link #shutdown} run on
 * the sequencer loop (asserted); the views read the links' volatile fields from any thread. Built
 * in two steps, because the sequencer and the transfers need the links: the constructor makes the
 * links, {@link #wire} hands over the parts, before the repeater starts.
 */
final class DuplicateLinks implements LinkHost {
  private static final Logger LOG = LoggerFactory.getLogger(DuplicateLinks.class);

  /**
   * In configuration order, then in the order duplicates were added online. Changed only on the
   * loop (a duplicate added or retired online); read from any thread.
   */
  private final List<DuplicateLink> links = new CopyOnWriteArrayList<>();

  private final RepeaterMeters meters;
  private final NettyRuntime runtime;
  private final LinkSecurity security;
  private final Notifier notifier;
  private final ClientFlow clients;
  private Sequencer sequencer;
  private Transfers transfers;

  DuplicateLinks(
      List<DuplicateSource> sources,
      RepeaterMeters meters,
      NettyRuntime runtime,
      LinkSecurity security,
      Notifier notifier,
      ClientFlow clients) {
    this.meters = meters;
    this.runtime = runtime;
    this.security = security;
    this.notifier = notifier;
    this.clients = clients;
    for (DuplicateSource source : sources) {
      links.add(new DuplicateLink(this, source, meters.duplicate(source.duplicateId())));
    }
  }

  /** Hands over the parts the links' calls go to; once, before start. */
  void wire(Sequencer sequencer, Transfers transfers) {
    this.sequencer = sequencer;
    this.transfers = transfers;
  }

  /**
   * Every link, in configuration order, then in the order duplicates were added. The list itself,
   * not a copy: the sequencer and the transfers see a duplicate added or retired online.
   */
  List<DuplicateLink> all() {
    return links;
  }

  /**
   * A link to a duplicate added online (or found in the membership record at start), last in order.
   * Before start or on the loop.
   *
   * @throws IllegalArgumentException if a duplicate has this id already
   */
  DuplicateLink add(DuplicateSource source) {
    assert runtime.loop() == null || runtime.inLoop() : "links change on the sequencer loop";
    for (DuplicateLink link : links) {
      if (link.id() == source.duplicateId()) {
        throw new IllegalArgumentException(
            "duplicateId: duplicate " + source.duplicateId() + " is already a member");
      }
    }
    DuplicateLink link = new DuplicateLink(this, source, meters.duplicate(source.duplicateId()));
    links.add(link);
    return link;
  }

  /**
   * Forgets a retired duplicate's link; the caller has fenced and shut it. Before start or on the
   * loop.
   */
  void remove(DuplicateLink link) {
    assert runtime.loop() == null || runtime.inLoop() : "links change on the sequencer loop";
    links.remove(link);
    meters.removeDuplicate(link.id());
  }

  /**
   * @throws IllegalArgumentException if no duplicate has this id
   */
  DuplicateLink get(int duplicateId) {
    for (DuplicateLink link : links) {
      if (link.id() == duplicateId) {
        return link;
      }
    }
    throw new IllegalArgumentException("duplicateId: no duplicate " + duplicateId);
  }

  // -------------------------------------------------------------------------------------------
  // views (any thread)

  List<DuplicateView> views() {
    List<DuplicateView> views = new ArrayList<>(links.size());
    for (DuplicateLink link : links) {
      views.add(link.view());
    }
    return views;
  }

  /** How many duplicates are fenced. */
  int fencedCount() {
    int fenced = 0;
    for (DuplicateLink link : links) {
      fenced += link.fenced() ? 1 : 0;
    }
    return fenced;
  }

  /**
   * The ACK latencies (ms) the predictor holds for duplicate {@code duplicateId}, oldest first.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  double[] samplesMs(int duplicateId) {
    for (DuplicateLink link : links) {
      if (link.id() == duplicateId) {
        return link.meters().samplesMs();
      }
    }
    throw new IllegalArgumentException("no duplicate " + duplicateId);
  }

  /** The ACK latencies (ms) of each duplicate that is not fenced. */
  List<double[]> liveSamplesMs() {
    return liveSamplesMs(-1);
  }

  /** The ACK latencies (ms) of each duplicate that is not fenced, but {@code withoutId}'s. */
  List<double[]> liveSamplesMs(int withoutId) {
    List<double[]> samples = new ArrayList<>();
    for (DuplicateLink link : links) {
      if (!link.fenced() && link.id() != withoutId) {
        samples.add(link.meters().samplesMs());
      }
    }
    return samples;
  }

  // -------------------------------------------------------------------------------------------
  // all links at once (on the loop)

  /** Drops the streaming connections whose ACKs are overdue ({@link DuplicateLink#checkAcks}). */
  void checkAcks(long nowNanos, long timeoutNanos) {
    assert runtime.inLoop() : "links run on the sequencer loop";
    for (DuplicateLink link : links) {
      link.checkAcks(nowNanos, timeoutNanos);
    }
  }

  /** Flushes every streaming connection; a future per connection, done once all is sent. */
  List<Future<?>> drain() {
    assert runtime.inLoop() : "links run on the sequencer loop";
    List<Future<?>> drains = new ArrayList<>();
    for (DuplicateLink link : links) {
      Future<?> drained = link.drain();
      if (drained != null) {
        drains.add(drained);
      }
    }
    return drains;
  }

  /** Closes every connection and stops following the endpoints. */
  void shutdown() {
    assert runtime.inLoop() : "links run on the sequencer loop";
    for (DuplicateLink link : links) {
      link.shutdown();
    }
  }

  // -------------------------------------------------------------------------------------------
  // LinkHost (on the loop)

  @Override
  public EventLoop loop() {
    return runtime.loop();
  }

  @Override
  public ChannelFuture connectPlugin(PluginEndpoint endpoint, Supplier<ChannelHandler> handler) {
    return runtime.connectPlugin(endpoint, handler);
  }

  @Override
  public Credential credential() {
    return security.credential();
  }

  @Override
  public RetransmissionLog log() {
    return sequencer.log();
  }

  @Override
  public long epoch() {
    return sequencer.epoch();
  }

  @Override
  public long claimedSeq() {
    return sequencer.claimedSeq();
  }

  @Override
  public boolean stopped() {
    return sequencer.stopped();
  }

  /**
   * A newer repeater exists: stops sequencing for good, closes every plugin connection (nothing
   * more may be applied), stops listening and closes every client connection after an
   * ERROR(STALE_EPOCH), so that clients move to the next repeater they know.
   */
  @Override
  public void depose(int duplicateId, String reason) {
    assert runtime.inLoop() : "deposition runs on the sequencer loop";
    if (!sequencer.depose()) {
      return;
    }
    LOG.warn(
        "repeater epoch {} deposed: duplicate {} reports {}; no longer listening, closing every client connection"
            + " (clients move to the next repeater they know) and refusing every WRITE with STALE_EPOCH",
        sequencer.epoch(),
        duplicateId,
        reason);
    shutdown();
    sequencer.clearLog();
    runtime.stopListening(false);
    clients.deposed();
    notifier.listener(l -> l.deposed(duplicateId, reason));
  }

  @Override
  public void acked() {
    sequencer.trim();
  }

  @Override
  public void fenced(DuplicateLink link, String reason, boolean rejoinable) {
    sequencer.trim(); // a fenced duplicate no longer holds the log
    DuplicateView view = link.view();
    notifier.listener(l -> l.duplicateFenced(view, reason));
    transfers.linkLost(link);
    if (rejoinable) {
      transfers.autoRejoinLater(link);
    }
  }

  @Override
  public void streamLost(DuplicateLink link) {
    transfers.linkLost(link);
  }

  @Override
  public void chunk(DuplicateLink from, Message.TransferChunk chunk) {
    transfers.relayChunk(from, chunk);
  }

  @Override
  public void transferError(DuplicateLink from, Message.Error error) {
    transfers.transferError(from, error);
  }

  @Override
  public void transferEnded(Transfer transfer, String failure) {
    transfers.transferEnded(transfer, failure);
  }

  @Override
  public void changed(DuplicateView view) {
    notifier.listener(l -> l.duplicateChanged(view));
  }

  @Override
  public void pluginError(int duplicateId, ErrorCode code, String message) {
    notifier.listener(l -> l.pluginError(duplicateId, code, message));
  }
}
