package io.zoolander.server.internal.repeater;

import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.zoolander.model.SlaPrediction;
import io.zoolander.server.internal.repeater.admission.AdmissionController;
import io.zoolander.server.internal.security.HandshakeFailures;
import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.ServerAuth;
import io.zoolander.server.internal.zk.RequestSize;
import io.zoolander.server.repeater.DuplicateView;
import io.zoolander.server.repeater.Rejoin;
import io.zoolander.server.repeater.RepeaterListener;
import io.zoolander.server.repeater.RepeaterSettings;
import io.zoolander.server.repeater.Takeover;
import io.zoolander.wire.BookkeepingState;
import io.zoolander.wire.ErrorCode;
import io.zoolander.wire.Message;
import io.zoolander.wire.Op;
import io.zoolander.wire.PluginEndpoint;
import io.zoolander.wire.WirePipeline;
import io.zoolander.wire.WireSettings;
import io.zoolander.wire.internal.Codec;
import io.zoolander.wire.internal.WriteChecks;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repeater: sequences WRITEs from clients and streams them, in seq order, to every duplicate's
 * plugin.
 *
 * <h2>Threads</h2>
 *
 * <ul>
 *   <li>Client connections are read and decoded on the client I/O threads ({@link ClientHandler}).
 *       Each read burst's WRITEs are handed to the sequencer in one task, in arrival order.
 *   <li>One <em>sequencer</em> thread (a single-threaded Netty event loop) owns everything else:
 *       the epoch and seq counter, the {@link RetransmissionLog}, and every plugin connection
 *       ({@link DuplicateLink}), which are registered on that same loop. Sequencing is therefore
 *       lock-free, and a frame written to a plugin channel from the loop goes out immediately and
 *       in seq order. A client's WRITEs arrive on one connection and are handed over in order, so
 *       they are never reordered.
 *   <li>Listener notifications run on their own thread.
 * </ul>
 *
 * <h2>Per write</h2>
 *
 * The SEQUENCED frames of one handoff are encoded (length prefix included) back to back into one
 * pooled buffer, a <em>run</em> of at most {@link #MAX_RUN_BYTES}; the log holds a slice of it per
 * frame, and each streaming plugin connection gets the whole run as one write below the message
 * codec. Writing per run rather than per frame and per connection is what keeps the sequencer's
 * cost per write low: Netty's per-write work (a derived buffer, an outbound entry, a
 * gathering-write buffer, reference counting) dominated it. Flushes are coalesced: one flush task
 * per burst of handoffs.
 *
 * <h2>Back-pressure</h2>
 *
 * <ul>
 *   <li>A plugin connection whose outbound queue passes {@link
 *       RepeaterSettings#PLUGIN_WRITE_HIGH_WATER_MARK_BYTES} is paused (the others keep receiving)
 *       and resumes from the log when it drains.
 *   <li>The log is trimmed at the lowest seq acked by the non-fenced duplicates. When it is full,
 *       the oldest entry is evicted if some non-fenced duplicate has acked it; a connected
 *       duplicate that has not yet been sent that entry is fenced at once, a disconnected one when
 *       it reconnects needing it. If no duplicate has acked it, the WRITE is refused with
 *       OVERLOADED instead: evicting would fence them all. See {@link RetransmissionLog#mayAppend}.
 *   <li>When even the most advanced non-fenced duplicate is {@link
 *       RepeaterSettings#CLIENT_PAUSE_UNACKED_PERCENT}% of the log behind, the system is overloaded
 *       rather than one duplicate slow: client connections stop being read (TCP pushes back) until
 *       it is back within {@link RepeaterSettings#CLIENT_RESUME_UNACKED_PERCENT}%, so OVERLOADED
 *       stays a last resort for WRITEs already read.
 *   <li>A client connection with more than {@link RepeaterSettings#MAX_PENDING_HANDOFFS_PER_CLIENT}
 *       handoffs queued stops being read until the sequencer catches up.
 * </ul>
 */
public final class RepeaterCore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RepeaterCore.class);

  /**
   * A run is offered to the plugin connections once it holds this much: bounds how far one write
   * can take a connection past its high-water mark, and how much memory the last frames of a mostly
   * trimmed run keep.
   */
  static final int MAX_RUN_BYTES = 64 * 1024;

  private final CoreConfig config;
  private final BatchingController batching;
  private final LinkSecurity security;
  private final RepeaterListener listener;
  private final List<DuplicateSource> sources;
  private final List<DuplicateLink> links;
  private final RepeaterMeters meters;
  private final Object lifecycle = new Object();

  private EventLoopGroup sequencerGroup;
  private EventLoop loop;
  private EventLoopGroup clientGroup;
  private ExecutorService events;
  private Channel serverChannel;
  private ChannelGroup clients;
  private Bootstrap pluginBootstrap;
  private boolean started;
  private boolean closed;
  private volatile Takeover takeover;

  /** Sheds WRITEs above the admitted rate; null when admission control is off. Set before start. */
  private AdmissionController admission;

  // Confined to the sequencer loop (set before it starts).
  private RetransmissionLog log;

  /**
   * Frames encoded by the current handoff and not yet offered to the links; null between handoffs.
   */
  private ByteBuf run;

  private long runFirstSeq;
  private long runLastSeq;
  private boolean flushScheduled;

  /** The timer of a flush that holds writes (a batching interval), or null. */
  private ScheduledFuture<?> heldFlush;

  private final Runnable flushTask = this::flushDirty;

  /**
   * The highest seq acked by a non-fenced duplicate; {@link Long#MAX_VALUE} when all are fenced.
   */
  private long highestAckedLive;

  private long pauseAtUnacked;
  private long resumeAtUnacked;

  // Shared with other threads.
  private volatile long epoch = -1;
  private volatile long nextSeq = -1;
  private volatile long sequencedSince =
      -1; // nextSeq at start: the write count is nextSeq - sequencedSince
  private volatile boolean deposed;
  private volatile boolean closing;
  private volatile boolean clientsPaused;
  private final Set<ClientHandler> clientHandlers = ConcurrentHashMap.newKeySet();

  /** State transfers in progress, by id; confined to the sequencer loop. */
  private final Map<Long, Transfer> transfers = new LinkedHashMap<>();

  private long nextTransferId = 1;

  public RepeaterCore(CoreConfig config, List<DuplicateSource> sources, RepeaterListener listener) {
    this(config, sources, listener, LinkSecurity.NONE);
  }

  /**
   * @param security TLS on both sides, who may write, and the credential shown to plugins
   */
  public RepeaterCore(
      CoreConfig config,
      List<DuplicateSource> sources,
      RepeaterListener listener,
      LinkSecurity security) {
    this(
        config,
        sources,
        listener,
        security,
        new RepeaterMeters(new CompositeMeterRegistry(), RepeaterSettings.DEFAULT_SLA_TAU_MS),
        BatchingController.none());
  }

  /**
   * @param meters where the repeater's meters go; closed with the repeater (its meters are removed)
   * @param batching how long to hold sequenced writes before flushing them to the plugins (see
   *     BatchingPolicy)
   */
  public RepeaterCore(
      CoreConfig config,
      List<DuplicateSource> sources,
      RepeaterListener listener,
      LinkSecurity security,
      RepeaterMeters meters,
      BatchingController batching) {
    this.batching = batching;
    this.security = security;
    this.meters = meters;
    this.config = config;
    this.sources = List.copyOf(sources);
    this.listener = listener == null ? new RepeaterListener() {} : listener;
    List<DuplicateLink> list = new ArrayList<>();
    for (DuplicateSource source : this.sources) {
      list.add(new DuplicateLink(this, source));
    }
    this.links = List.copyOf(list);
    meters.registerGauges(this, links);
  }

  /**
   * Turns admission control on (before {@link #start()}): WRITEs above the rate it admits are
   * refused with OVERLOADED and its retry-after hint.
   */
  public void admission(AdmissionController controller) {
    synchronized (lifecycle) {
      if (started) {
        throw new IllegalStateException("admission control must be set before start");
      }
      this.admission = controller;
    }
  }

  /** The admission controller, null when admission control is off. */
  public AdmissionController admission() {
    return admission;
  }

  // -------------------------------------------------------------------------------------------
  // lifecycle

  /**
   * Takes over: reads every duplicate's state, claims an epoch above all of them at every duplicate
   * (which fences every older repeater), recovers from the most advanced duplicates the writes
   * others missed ({@link Recovery}), binds the client listener and starts following the
   * duplicates' plugins. On failure everything started is closed again.
   *
   * @throws IllegalStateException if already started, or the configured epoch is not above every
   *     duplicate's epoch or was claimed by another repeater first
   * @throws TimeoutException if some duplicate's state cannot be read or claimed within the start
   *     timeout
   * @throws IOException if a state cannot be read or the listener cannot be bound
   */
  public void start() throws IOException, InterruptedException, TimeoutException {
    synchronized (lifecycle) {
      if (started || closed) {
        throw new IllegalStateException(closed ? "repeater is closed" : "repeater already started");
      }
      started = true;
    }
    try {
      startUp();
    } catch (IOException | InterruptedException | TimeoutException | RuntimeException | Error e) {
      close();
      throw e;
    }
  }

  private void startUp() throws IOException, InterruptedException, TimeoutException {
    long startNanos = System.nanoTime();
    long deadline = startNanos + TimeUnit.MILLISECONDS.toNanos(config.startTimeoutMillis());
    events =
        Executors.newSingleThreadExecutor(
            new DefaultThreadFactory("zoolander-repeater-events", true));
    sequencerGroup =
        new NioEventLoopGroup(1, new DefaultThreadFactory("zoolander-repeater-sequencer", true));
    loop = sequencerGroup.next();
    pluginBootstrap =
        new Bootstrap()
            .group(loop)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(
                ChannelOption.CONNECT_TIMEOUT_MILLIS,
                RepeaterSettings.PLUGIN_CONNECT_TIMEOUT_MILLIS)
            .option(ChannelOption.SO_SNDBUF, RepeaterSettings.PLUGIN_SOCKET_SEND_BUFFER_BYTES)
            .option(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    RepeaterSettings.PLUGIN_WRITE_LOW_WATER_MARK_BYTES,
                    RepeaterSettings.PLUGIN_WRITE_HIGH_WATER_MARK_BYTES));

    List<DuplicateSource.Claim> claims = claimEpoch(deadline);
    long claimedNanos = System.nanoTime();
    Map<Integer, Long> applied = new LinkedHashMap<>();
    long maxApplied = 0;
    for (int i = 0; i < claims.size(); i++) {
      long appliedSeq = claims.get(i).state().appliedSeq();
      links.get(i).initialAck(appliedSeq);
      applied.put(links.get(i).id(), appliedSeq);
      maxApplied = Math.max(maxApplied, appliedSeq);
    }
    List<Message.Sequenced> recovered =
        Recovery.recover(
            applied,
            config.logCapacityMessages(),
            (duplicateId, from, to) -> fetchRecentWrites(claims, duplicateId, from, to, deadline));
    List<ByteBuf> frames = encodeRecovered(recovered);
    long firstSeq = maxApplied + 1 - frames.size();
    log = new RetransmissionLog(config.logCapacityMessages(), firstSeq);
    frames.forEach(log::append);
    pauseAtUnacked =
        Math.max(
            1,
            (long) config.logCapacityMessages()
                * RepeaterSettings.CLIENT_PAUSE_UNACKED_PERCENT
                / 100);
    resumeAtUnacked =
        (long) config.logCapacityMessages() * RepeaterSettings.CLIENT_RESUME_UNACKED_PERCENT / 100;
    highestAckedLive = maxApplied;
    nextSeq = maxApplied + 1;
    long doneNanos = System.nanoTime();
    takeover =
        new Takeover(
            epoch,
            applied,
            firstSeq,
            maxApplied,
            TimeUnit.NANOSECONDS.toMillis(claimedNanos - startNanos),
            TimeUnit.NANOSECONDS.toMillis(doneNanos - claimedNanos));
    LOG.info(
        "repeater epoch {}, next seq {}: claimed at every duplicate in {} ms (applied seqs {}); recovered {} writes"
            + " ({}..{}) for the duplicates behind in {} ms",
        epoch,
        nextSeq,
        takeover.claimMillis(),
        applied,
        takeover.recoveredWrites(),
        firstSeq,
        maxApplied,
        takeover.recoveryMillis());

    clientGroup =
        new NioEventLoopGroup(
            config.clientIoThreads(), new DefaultThreadFactory("zoolander-repeater-clients", true));
    clients = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    ServerBootstrap server =
        new ServerBootstrap()
            .group(clientGroup)
            .channel(NioServerSocketChannel.class)
            .childOption(ChannelOption.TCP_NODELAY, true)
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    clients.add(ch);
                    if (security.tls() != null) {
                      security.tls().addServerHandler(ch.pipeline());
                      ch.pipeline().addLast(new HandshakeFailures(meters::tlsFailure));
                    }
                    WirePipeline.install(ch.pipeline(), RepeaterSettings.MAX_FRAME_BYTES);
                    ch.pipeline()
                        .addLast(
                            new ClientHandler(
                                RepeaterCore.this,
                                new ServerAuth(security.access(), meters::authFailure)));
                  }
                });
    ChannelFuture bound = server.bind(config.clientHost(), config.clientPort()).await();
    if (!bound.isSuccess()) {
      throw new IOException(
          "cannot listen for clients on "
              + config.clientHost()
              + ":"
              + config.clientPort()
              + ": "
              + bound.cause(),
          bound.cause());
    }
    serverChannel = bound.channel();
    LOG.info("repeater listening for clients on {}", serverChannel.localAddress());
    long checkMillis = Math.max(10, config.pluginAckTimeoutMillis() / 4);
    loop.scheduleWithFixedDelay(
        () -> {
          long now = System.nanoTime();
          long timeout = TimeUnit.MILLISECONDS.toNanos(config.pluginAckTimeoutMillis());
          for (DuplicateLink link : links) {
            link.checkAcks(now, timeout);
          }
        },
        checkMillis,
        checkMillis,
        TimeUnit.MILLISECONDS);
    if (admission != null) {
      loop.scheduleAtFixedRate(
          admission::tick, admission.periodNanos(), admission.periodNanos(), TimeUnit.NANOSECONDS);
    }

    long firstNextSeq = nextSeq;
    long sampleMillis = RepeaterMeters.ARRIVAL_RATE_WINDOW_MS / RepeaterMeters.ARRIVAL_RATE_SAMPLES;
    meters.sampleArrivals(System.nanoTime(), 0);
    loop.scheduleAtFixedRate(
        () -> meters.sampleArrivals(System.nanoTime(), nextSeq - firstNextSeq),
        sampleMillis,
        sampleMillis,
        TimeUnit.MILLISECONDS);
    sequencedSince = firstNextSeq;

    for (DuplicateLink link : links) {
      try {
        link.source()
            .watchEndpoint(
                endpoint -> {
                  try {
                    loop.execute(() -> link.endpointChanged(endpoint));
                  } catch (RejectedExecutionException e) {
                    // closing
                  }
                });
      } catch (IOException | RuntimeException e) {
        throw e;
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        throw new IOException("cannot watch the endpoint of duplicate " + link.id() + ": " + e, e);
      }
    }
  }

  /**
   * Reads every duplicate's state, chooses an epoch above all of them (or the configured one) and
   * claims it at every duplicate. If another repeater claimed that epoch first somewhere, tries the
   * next one (after a random pause, so two repeaters starting together do not keep colliding),
   * unless the epoch is configured.
   *
   * @return each duplicate's claim, in configuration order
   */
  private List<DuplicateSource.Claim> claimEpoch(long deadline)
      throws IOException, InterruptedException, TimeoutException {
    List<BookkeepingState> states;
    try {
      states =
          onEveryDuplicate(
              "read the state of", deadline, source -> source.readState(remainingMillis(deadline)));
    } catch (EpochTakenException e) {
      throw new IllegalStateException(e); // reading claims nothing
    }
    long maxEpoch = states.stream().mapToLong(BookkeepingState::epoch).max().orElse(0);
    long chosen = config.fixedEpoch().orElse(maxEpoch + 1);
    if (chosen <= maxEpoch) {
      throw new IllegalStateException(
          "configured epoch "
              + chosen
              + " is not above the highest epoch found in the"
              + " duplicates' state, "
              + maxEpoch
              + ": a newer repeater has run; configure a higher epoch or none");
    }
    while (true) {
      long claiming = chosen;
      try {
        List<DuplicateSource.Claim> claims =
            onEveryDuplicate(
                "claim epoch " + claiming + " at",
                deadline,
                source -> source.claim(claiming, remainingMillis(deadline)));
        epoch = claiming;
        return claims;
      } catch (EpochTakenException e) {
        if (config.fixedEpoch().isPresent()) {
          throw new IllegalStateException(
              "configured epoch " + claiming + ": " + e.getMessage(), e);
        }
        LOG.warn("{}; claiming a higher epoch", e.getMessage());
        chosen = Math.max(claiming, e.heldEpoch()) + 1;
        if (System.nanoTime() - deadline > 0) {
          throw new TimeoutException(
              "no epoch could be claimed at every duplicate within "
                  + config.startTimeoutMillis()
                  + " ms: other repeaters keep starting");
        }
        Thread.sleep(
            ThreadLocalRandom.current().nextLong(RepeaterSettings.CLAIM_RETRY_PAUSE_MAX_MILLIS)
                + 1);
      }
    }
  }

  /**
   * Asks a duplicate's plugin for its recent writes; nothing if it has no endpoint or cannot answer
   * in time.
   */
  private List<Message.Sequenced> fetchRecentWrites(
      List<DuplicateSource.Claim> claims, int duplicateId, long from, long to, long deadline)
      throws InterruptedException {
    for (int i = 0; i < links.size(); i++) {
      if (links.get(i).id() != duplicateId) {
        continue;
      }
      Optional<PluginEndpoint> endpoint = claims.get(i).endpoint();
      if (endpoint.isEmpty()) {
        LOG.warn(
            "duplicate {} publishes no plugin endpoint: cannot recover writes {}..{} from it",
            duplicateId,
            from,
            to);
        return List.of();
      }
      try {
        return Recovery.fetch(
            pluginBootstrap,
            security,
            endpoint.get(),
            epoch,
            from,
            to,
            Math.min(
                RepeaterSettings.RECOVERY_FETCH_TIMEOUT_MILLIS,
                Math.max(1, remainingMillis(deadline))));
      } catch (IOException | TimeoutException e) {
        LOG.warn(
            "cannot recover writes {}..{} from duplicate {}: {}",
            from,
            to,
            duplicateId,
            e.getMessage());
        return List.of();
      }
    }
    return List.of();
  }

  /**
   * Encodes the recovered writes under this repeater's epoch. A write that no longer fits in a
   * frame (impossible unless the frame limit shrank) ends the run there: only the writes after it
   * are kept.
   */
  private List<ByteBuf> encodeRecovered(List<Message.Sequenced> recovered) {
    List<ByteBuf> frames = new ArrayList<>(recovered.size());
    for (Message.Sequenced write : recovered) {
      ByteBuf frame = encodeAlone(write.seq(), write.clientId(), write.requestId(), write.ops());
      if (frame == null) {
        LOG.error(
            "recovered write {} exceeds {} bytes as a frame: the writes up to it are not recovered",
            write.seq(),
            RepeaterSettings.MAX_FRAME_BYTES);
        frames.forEach(ByteBuf::release);
        frames.clear();
      } else {
        frames.add(frame);
      }
    }
    return frames;
  }

  @FunctionalInterface
  private interface SourceCall<T> {
    T call(DuplicateSource source) throws Exception;
  }

  /**
   * Runs {@code call} on every duplicate's source in parallel, before {@code deadline}; results in
   * source order.
   */
  private <T> List<T> onEveryDuplicate(String what, long deadline, SourceCall<T> call)
      throws IOException, InterruptedException, TimeoutException, EpochTakenException {
    ExecutorService callers =
        Executors.newFixedThreadPool(
            sources.size(), new DefaultThreadFactory("zoolander-repeater-start", true));
    try {
      List<java.util.concurrent.Future<T>> futures = new ArrayList<>();
      for (DuplicateSource source : sources) {
        futures.add(callers.submit(() -> call.call(source)));
      }
      List<T> results = new ArrayList<>();
      for (int i = 0; i < futures.size(); i++) {
        DuplicateSource source = sources.get(i);
        try {
          results.add(
              futures.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
        } catch (java.util.concurrent.TimeoutException e) {
          throw new TimeoutException(
              "could not "
                  + what
                  + " duplicate "
                  + source.duplicateId()
                  + " at "
                  + source.connectString()
                  + " within "
                  + config.startTimeoutMillis()
                  + " ms");
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof TimeoutException t) {
            throw t;
          }
          if (cause instanceof EpochTakenException t) {
            throw t;
          }
          if (cause instanceof IllegalStateException ise) {
            throw ise;
          }
          throw new IOException(
              "could not "
                  + what
                  + " duplicate "
                  + source.duplicateId()
                  + " at "
                  + source.connectString()
                  + ": "
                  + cause,
              cause);
        }
      }
      return results;
    } finally {
      callers.shutdownNow();
    }
  }

  private static long remainingMillis(long deadline) {
    return Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
  }

  /**
   * Stops: refuses further WRITEs (SHUTTING_DOWN), gives queued SEQUENCED frames {@link
   * RepeaterSettings#CLOSE_DRAIN_TIMEOUT_MILLIS} to reach the plugins, then closes every connection
   * and thread. Idempotent.
   */
  @Override
  public void close() {
    synchronized (lifecycle) {
      if (closed) {
        return;
      }
      closed = true;
    }
    closing = true;
    meters.close();
    if (serverChannel != null) {
      serverChannel.close().awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
    if (loop != null) {
      List<Future<?>> drains = new ArrayList<>();
      onLoopAndWait(
          () -> {
            for (DuplicateLink link : links) {
              Future<?> drained = link.drain();
              if (drained != null) {
                drains.add(drained);
              }
            }
          });
      long deadline =
          System.nanoTime()
              + TimeUnit.MILLISECONDS.toNanos(RepeaterSettings.CLOSE_DRAIN_TIMEOUT_MILLIS);
      for (Future<?> drained : drains) {
        drained.awaitUninterruptibly(
            Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      }
    }
    closeSources();
    if (loop != null) {
      onLoopAndWait(
          () -> {
            for (DuplicateLink link : links) {
              link.shutdown();
            }
            log.clear();
          });
    }
    if (clients != null) {
      clients.close().awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
    List<Future<?>> terminations = new ArrayList<>();
    if (clientGroup != null) {
      terminations.add(
          clientGroup.shutdownGracefully(
              0, RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    }
    if (sequencerGroup != null) {
      terminations.add(
          sequencerGroup.shutdownGracefully(
              0, RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
    }
    for (Future<?> termination : terminations) {
      termination.awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    }
    if (events != null) {
      events.shutdown();
    }
    LOG.info("repeater closed");
  }

  /** Closes the duplicates' sources in parallel: closing a ZooKeeper session takes about 100 ms. */
  private void closeSources() {
    List<Thread> closers = new ArrayList<>();
    for (DuplicateSource source : sources) {
      Thread closer =
          new Thread(
              () -> {
                try {
                  source.close();
                } catch (RuntimeException e) {
                  LOG.warn(
                      "closing the source of duplicate {}: {}", source.duplicateId(), e.toString());
                }
              },
              "zoolander-repeater-close-" + source.duplicateId());
      closer.setDaemon(true);
      closer.start();
      closers.add(closer);
    }
    long deadline =
        System.nanoTime()
            + TimeUnit.MILLISECONDS.toNanos(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    for (Thread closer : closers) {
      long millis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (millis > 0) {
        try {
          closer.join(millis);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void onLoopAndWait(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
      return;
    }
    try {
      loop.submit(task).awaitUninterruptibly(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS);
    } catch (RejectedExecutionException e) {
      // already shut down
    }
  }

  // -------------------------------------------------------------------------------------------
  // state transfer

  /**
   * Brings a duplicate back by state transfer (see {@link
   * io.zoolander.server.repeater.Repeater#rejoin}).
   *
   * @throws IllegalArgumentException if no duplicate has this id
   */
  public CompletableFuture<Void> rejoin(int duplicateId) {
    DuplicateLink link = link(duplicateId);
    CompletableFuture<Void> done = new CompletableFuture<>();
    EventLoop l = loop;
    if (l == null || log == null) {
      done.completeExceptionally(new IllegalStateException("repeater not started"));
      return done;
    }
    try {
      l.execute(() -> startRejoin(link, done, false));
    } catch (RejectedExecutionException e) {
      done.completeExceptionally(new IllegalStateException("repeater is closed"));
    }
    return done;
  }

  /**
   * Fences a duplicate for the operator (see {@link io.zoolander.server.repeater.Repeater#fence});
   * returns once done.
   *
   * @throws IllegalArgumentException if no duplicate has this id
   * @throws IllegalStateException if the repeater is not started
   */
  public void fence(int duplicateId) {
    DuplicateLink link = link(duplicateId);
    if (loop == null || log == null) {
      throw new IllegalStateException("repeater not started");
    }
    onLoopAndWait(link::fenceByOperator);
  }

  private DuplicateLink link(int duplicateId) {
    for (DuplicateLink link : links) {
      if (link.id() == duplicateId) {
        return link;
      }
    }
    throw new IllegalArgumentException("duplicateId: no duplicate " + duplicateId);
  }

  boolean autoRejoin() {
    return config.autoRejoin();
  }

  /**
   * A duplicate was fenced in a way a state transfer repairs: rejoin it shortly, if configured to.
   */
  void autoRejoinLater(DuplicateLink link) {
    if (!config.autoRejoin() || stopped()) {
      return;
    }
    LOG.info(
        "duplicate {}: rejoining it by state transfer in {} ms (automatic)",
        link.id(),
        RepeaterSettings.AUTO_REJOIN_DELAY_MILLIS);
    loop.schedule(
        () -> {
          if (link.fenced() && link.transfer() == null && !stopped()) {
            startRejoin(link, new CompletableFuture<>(), true);
          }
        },
        RepeaterSettings.AUTO_REJOIN_DELAY_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  private void startRejoin(DuplicateLink target, CompletableFuture<Void> done, boolean automatic) {
    if (stopped()) {
      done.completeExceptionally(new IllegalStateException("the repeater is closing or deposed"));
      return;
    }
    Transfer running = target.transfer();
    if (running != null) {
      running.future.whenComplete(
          (v, e) -> {
            if (e == null) {
              done.complete(null);
            } else {
              done.completeExceptionally(e);
            }
          });
      return;
    }
    DuplicateLink source = null;
    for (DuplicateLink link : links) {
      if (link != target
          && !link.fenced()
          && link.transfer() == null
          && link.streaming()
          && (source == null || link.ackedSeq() > source.ackedSeq())) {
        source = link;
      }
    }
    if (source == null) {
      String why =
          "no other duplicate is streaming: there is no healthy duplicate to take a snapshot of";
      LOG.warn("duplicate {}: cannot rejoin: {}", target.id(), why);
      done.completeExceptionally(
          new IllegalStateException("duplicate " + target.id() + " cannot rejoin: " + why));
      notifyListener(() -> listener.rejoinFailed(target.id(), why));
      return;
    }
    Transfer t = new Transfer(nextTransferId++, source, target, done, automatic, source.ackedSeq());
    transfers.put(t.id, t);
    t.timeout =
        loop.schedule(
            () -> {
              if (transfers.get(t.id) == t) {
                t.target.transferFailed(
                    "not done within " + RepeaterSettings.TRANSFER_TIMEOUT_MILLIS + " ms");
              }
            },
            RepeaterSettings.TRANSFER_TIMEOUT_MILLIS,
            TimeUnit.MILLISECONDS);
    LOG.info(
        "duplicate {}: rejoining by state transfer {} from duplicate {} (acked seq {}){}",
        target.id(),
        t.id,
        source.id(),
        source.ackedSeq(),
        automatic ? " (automatic)" : "");
    target.beginRejoin(t);
    trim();
  }

  /**
   * A chunk of a snapshot from {@code from}: relayed to the transfer's target; the last one says
   * how far to catch up.
   */
  void relayChunk(DuplicateLink from, Message.TransferChunk chunk) {
    Transfer t = transfers.get(chunk.transferId());
    if (t == null || t.source != from) {
      return; // of a transfer that ended
    }
    if (chunk.index() == 0) {
      t.snapshotSeq = chunk.appliedSeq();
    }
    t.chunks++;
    t.znodes += chunk.nodes().size();
    for (Message.TransferChunk.Node node : chunk.nodes()) {
      t.bytes += node.path().length() + node.data().length;
    }
    Message.TransferChunk out = chunk;
    if (chunk.last()) {
      t.relayedLast = true;
      out = chunk.withCatchUpToSeq(Math.max(chunk.appliedSeq(), nextSeq - 1));
    }
    if (!t.target.relay(out)) {
      t.target.transferFailed("the connection to its plugin was lost during the transfer");
    }
  }

  /** An ERROR about a transfer (its request id) from its source or target: the transfer failed. */
  void transferError(DuplicateLink from, Message.Error error) {
    Transfer t = transfers.get(error.requestId());
    if (t == null || (t.source != from && t.target != from)) {
      LOG.warn(
          "duplicate {}: {} about no transfer in progress: {}",
          from.id(),
          error.code(),
          error.message());
      return;
    }
    t.target.transferFailed(
        (from == t.source ? "the source duplicate " + from.id() : "its plugin")
            + " answered "
            + error.code()
            + ": "
            + error.message());
  }

  /**
   * {@code link}'s connection is gone or fenced: the transfers it was the source of cannot finish.
   */
  void linkLost(DuplicateLink link) {
    for (Transfer t : List.copyOf(transfers.values())) {
      if (t.source == link) {
        t.target.transferFailed(
            "the source duplicate " + link.id() + " stopped streaming during the transfer");
      }
    }
  }

  /** A transfer ended, done ({@code failure} null) or failed; its link has let it go. */
  void transferEnded(Transfer t, String failure) {
    transfers.remove(t.id);
    if (t.timeout != null) {
      t.timeout.cancel(false);
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t.startNanos);
    if (failure == null) {
      Rejoin rejoin =
          new Rejoin(
              t.target.id(),
              t.source.id(),
              t.snapshotSeq,
              t.znodes,
              t.bytes,
              t.chunks,
              millis,
              t.automatic);
      LOG.info(
          "duplicate {} rejoined by state transfer {} from duplicate {} in {} ms: snapshot at seq {}, {} znodes,"
              + " {} bytes in {} chunks; streaming from there",
          t.target.id(),
          t.id,
          t.source.id(),
          millis,
          t.snapshotSeq,
          t.znodes,
          t.bytes,
          t.chunks);
      completeLater(t.future, null);
      notifyListener(() -> listener.duplicateRejoined(rejoin));
    } else {
      LOG.warn(
          "duplicate {}: state transfer {} from duplicate {} failed after {} ms: {}",
          t.target.id(),
          t.id,
          t.source.id(),
          millis,
          failure);
      completeLater(
          t.future,
          new IllegalStateException(
              "duplicate " + t.target.id() + ": state transfer failed: " + failure));
      notifyListener(() -> listener.rejoinFailed(t.target.id(), failure));
    }
    if (log != null) {
      trim();
    }
  }

  /** Completes a caller's future off the sequencer loop, so that its callbacks never run there. */
  private void completeLater(CompletableFuture<Void> future, Throwable failure) {
    Runnable complete =
        () -> {
          if (failure == null) {
            future.complete(null);
          } else {
            future.completeExceptionally(failure);
          }
        };
    ExecutorService executor = events;
    if (executor == null) {
      complete.run();
      return;
    }
    try {
      executor.execute(complete);
    } catch (RejectedExecutionException e) {
      complete.run(); // closing
    }
  }

  // -------------------------------------------------------------------------------------------
  // views

  public InetSocketAddress boundAddress() {
    Channel server = serverChannel;
    if (server == null) {
      throw new IllegalStateException("repeater not started");
    }
    return (InetSocketAddress) server.localAddress();
  }

  /** The epoch, or -1 before start. */
  public long epoch() {
    return epoch;
  }

  /** How this repeater took over at start; null before. */
  public Takeover takeover() {
    return takeover;
  }

  /** The seq the next write gets, or -1 before start. */
  public long nextSeq() {
    return nextSeq;
  }

  public boolean isDeposed() {
    return deposed;
  }

  boolean isClosing() {
    return closing;
  }

  /**
   * How many sequenced writes the retransmission log holds now (asked of the sequencer thread); -1
   * if stopped.
   */
  public int logSize() {
    EventLoop l = loop;
    if (l == null) {
      return -1;
    }
    try {
      return l.submit(() -> log.size())
          .get(RepeaterSettings.CLOSE_THREADS_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
      return -1;
    }
  }

  /** Writes sequenced since start (0 before). */
  long sequencedWrites() {
    long since = sequencedSince;
    return since < 0 ? 0 : nextSeq - since;
  }

  /** How many duplicates are fenced. */
  public int fencedCount() {
    int fenced = 0;
    for (DuplicateLink link : links) {
      fenced += link.fenced() ? 1 : 0;
    }
    return fenced;
  }

  /** How many duplicates are not fenced. */
  public int liveDuplicates() {
    return links.size() - fencedCount();
  }

  /** The meters and the predictor's inputs. */
  public RepeaterMeters meters() {
    return meters;
  }

  /**
   * Writes sequenced per second, measured over the last {@link
   * RepeaterMeters#ARRIVAL_RATE_WINDOW_MS}.
   */
  public double arrivalRatePerSec() {
    return meters.arrivalRatePerSec();
  }

  /**
   * The ACK latencies (ms) the predictor holds for duplicate {@code duplicateId}, oldest first: of
   * writes sent while it owed no ACK ({@link RepeaterMeters.Duplicate}).
   */
  public double[] serviceTimeSamplesMs(int duplicateId) {
    for (DuplicateLink link : links) {
      if (link.id() == duplicateId) {
        return link.meters().samplesMs();
      }
    }
    throw new IllegalArgumentException("no duplicate " + duplicateId);
  }

  /**
   * The SLA at {@code tauMs} rp-model predicts for {@code duplicates} duplicates at {@code
   * arrivalRatePerSec}, from the ACK latencies of the duplicates that are not fenced ({@link
   * SlaWhatIf}); null before any was measured.
   */
  public SlaPrediction predict(int duplicates, double arrivalRatePerSec, double tauMs) {
    List<double[]> samples = new ArrayList<>();
    for (DuplicateLink link : links) {
      if (!link.fenced()) {
        samples.add(link.meters().samplesMs());
      }
    }
    return SlaWhatIf.predict(samples, duplicates, arrivalRatePerSec, tauMs);
  }

  public List<DuplicateView> duplicates() {
    List<DuplicateView> views = new ArrayList<>(links.size());
    for (DuplicateLink link : links) {
      views.add(link.view());
    }
    return views;
  }

  // -------------------------------------------------------------------------------------------
  // sequencing

  /**
   * Why {@code write} must not be sequenced, or null if it may be: an application path at or under
   * the base path (INVALID_OP), a SEQUENCED frame over the frame limit or a ZooKeeper request over
   * the duplicates' {@code jute.maxbuffer} (TOO_LARGE). Every duplicate would fail such a write:
   * refusing it here applies it nowhere. Pure; runs on the client I/O threads.
   */
  Message.Error refusal(Message.Write write) {
    String reserved = WriteChecks.reservedPath(write.ops(), config.znodes());
    if (reserved != null) {
      return Message.Error.forRequest(ErrorCode.INVALID_OP, write.requestId(), reserved);
    }
    long frameBytes = WriteChecks.sequencedFrameBytes(write.ops());
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      return Message.Error.forRequest(
          ErrorCode.TOO_LARGE,
          write.requestId(),
          WriteChecks.tooLarge(frameBytes, RepeaterSettings.MAX_FRAME_BYTES));
    }
    if (!RequestSize.fitsInOneRequest(
        config.znodes(), write.clientId(), write.ops(), config.juteMaxBufferBytes())) {
      return Message.Error.forRequest(
          ErrorCode.TOO_LARGE,
          write.requestId(),
          "the write is too large for one"
              + " ZooKeeper request: with the plugin's bookkeeping it would exceed the duplicates' jute.maxbuffer of "
              + config.juteMaxBufferBytes()
              + " bytes (less "
              + RequestSize.HEADROOM_BYTES
              + " bytes of headroom; the"
              + " repeater's juteMaxBuffer setting)");
    }
    return null;
  }

  /**
   * Hands a client's WRITEs, in arrival order, to the sequencer.
   *
   * @return false if the sequencer no longer runs (the caller refuses them)
   */
  boolean submit(ClientHandler from, List<Message.Write> writes) {
    try {
      loop.execute(() -> sequence(from, writes));
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  private void sequence(ClientHandler from, List<Message.Write> writes) {
    try {
      for (Message.Write write : writes) {
        sequenceOne(from, write);
      }
    } finally {
      offerRun();
      scheduleFlush();
      from.handoffDone();
    }
  }

  private void sequenceOne(ClientHandler from, Message.Write write) {
    if (closing) {
      from.refuse(ErrorCode.SHUTTING_DOWN, write.requestId(), 0, "the repeater is shutting down");
      return;
    }
    if (deposed) {
      from.refuse(ErrorCode.STALE_EPOCH, write.requestId(), 0, staleMessage());
      return;
    }
    if (admission != null && !admission.tryAdmit()) {
      from.refuse(
          ErrorCode.OVERLOADED,
          write.requestId(),
          admission.retryAfterMs(),
          "admission control: the"
              + " duplicates would miss the target SLA at tau at the offered write rate; retry after the hint");
      return;
    }
    if (!makeRoom()) {
      from.refuse(
          ErrorCode.OVERLOADED,
          write.requestId(),
          RepeaterSettings.OVERLOADED_RETRY_AFTER_MILLIS,
          "the retransmission log is full of writes no duplicate has acknowledged");
      return;
    }
    long seq = log.nextSeq();
    ByteBuf frame = encode(seq, write.clientId(), write.requestId(), write.ops());
    if (frame == null) { // refused before the handoff already (refusal): a safety net
      from.refuse(
          ErrorCode.TOO_LARGE,
          write.requestId(),
          0,
          WriteChecks.tooLarge(
              WriteChecks.sequencedFrameBytes(write.ops()), RepeaterSettings.MAX_FRAME_BYTES));
      return;
    }
    log.append(frame);
    if (admission != null) {
      admission.sequenced(seq);
    }
    nextSeq = seq + 1;
    runLastSeq = seq;
    if (run.readableBytes() >= MAX_RUN_BYTES) {
      offerRun();
    }
    if (seq - highestAckedLive >= pauseAtUnacked) {
      pauseClients(from);
    }
  }

  /**
   * Every live duplicate is far behind: stop reading clients until one catches up (TCP pushes
   * back). The sender is paused again even if already paused, in case its own handoff logic resumed
   * it meanwhile.
   */
  private void pauseClients(ClientHandler from) {
    if (!clientsPaused) {
      clientsPaused = true;
      LOG.info(
          "every duplicate is {} or more writes behind: not reading clients until one catches up",
          pauseAtUnacked);
      for (ClientHandler client : clientHandlers) {
        client.pause();
      }
    } else {
      from.pause();
    }
  }

  private void resumeClientsIfCaughtUp() {
    if (clientsPaused
        && (highestAckedLive == Long.MAX_VALUE
            || log.lastSeq() - highestAckedLive <= resumeAtUnacked)) {
      clientsPaused = false;
      LOG.info("a duplicate caught up: reading clients again");
      for (ClientHandler client : clientHandlers) {
        client.resumeIfIdle();
      }
    }
  }

  boolean clientsPaused() {
    return clientsPaused;
  }

  void clientConnected(ClientHandler client) {
    clientHandlers.add(client);
    if (clientsPaused) {
      client.pause();
    }
  }

  void clientDisconnected(ClientHandler client) {
    clientHandlers.remove(client);
  }

  /**
   * Makes room for one more entry if the log is full, by the back-pressure rule; false to refuse
   * the write.
   */
  private boolean makeRoom() {
    if (!log.isFull()) {
      return true;
    }
    if (!log.mayAppend(highestAckedLive)) {
      return false;
    }
    offerRun(); // links decide on fencing by what they were sent: send them everything sequenced
    // first
    long evicted = log.evictOldest();
    for (DuplicateLink link : links) {
      link.evicted(evicted);
    }
    return true;
  }

  /**
   * Appends {@code SEQUENCED(epoch, seq, write)} as a whole frame, length prefix included, to the
   * run, and returns a slice of it holding its own reference (for the log). Null if the frame would
   * be too large.
   */
  private ByteBuf encode(long seq, long clientId, long requestId, List<Op> ops) {
    if (run == null) {
      run =
          ByteBufAllocator.DEFAULT.ioBuffer(
              sizeHint(ops)); // grows with the run: a lone write stays small
      runFirstSeq = seq;
      runLastSeq = seq - 1;
    }
    int start = run.writerIndex();
    try {
      run.writeInt(0);
      Codec.encode(new Message.Sequenced(epoch, seq, clientId, requestId, ops), run);
    } catch (RuntimeException e) {
      run.writerIndex(start);
      throw e;
    }
    int frameBytes = run.writerIndex() - start;
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      run.writerIndex(start);
      return null;
    }
    run.setInt(start, frameBytes - WireSettings.LENGTH_FIELD_BYTES);
    return run.retainedSlice(start, frameBytes);
  }

  /**
   * Encodes one SEQUENCED frame in a buffer of its own: recovered writes go to the log before any
   * streaming and are sent from it, never offered as a run. Null if the frame would be too large.
   */
  private ByteBuf encodeAlone(long seq, long clientId, long requestId, List<Op> ops) {
    ByteBuf frame = ByteBufAllocator.DEFAULT.ioBuffer(sizeHint(ops));
    try {
      frame.writeInt(0);
      Codec.encode(new Message.Sequenced(epoch, seq, clientId, requestId, ops), frame);
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
    int frameBytes = frame.readableBytes();
    if (frameBytes > RepeaterSettings.MAX_FRAME_BYTES) {
      frame.release();
      return null;
    }
    frame.setInt(0, frameBytes - WireSettings.LENGTH_FIELD_BYTES);
    return frame;
  }

  /**
   * Offers the run, if any, to every link and lets it go: the log's slices keep its memory until
   * they are trimmed.
   */
  private void offerRun() {
    ByteBuf frames = run;
    if (frames == null) {
      return;
    }
    run = null;
    try {
      if (runLastSeq >= runFirstSeq) {
        for (int i = 0; i < links.size(); i++) {
          links.get(i).offer(runFirstSeq, runLastSeq, frames);
        }
      }
    } finally {
      frames.release();
    }
  }

  private static int sizeHint(List<Op> ops) {
    long hint = 64;
    for (Op op : ops) {
      hint += 16 + op.path().length();
      if (op instanceof Op.Create c) {
        hint += c.data().length;
      } else if (op instanceof Op.SetData s) {
        hint += s.data().length;
      }
    }
    return (int) Math.min(hint, RepeaterSettings.MAX_FRAME_BYTES);
  }

  private void scheduleFlush() {
    if (!flushScheduled) {
      flushScheduled = true;
      long holdNanos = batching.holdNanos();
      if (holdNanos == 0) {
        loop.execute(flushTask);
      } else {
        heldFlush =
            loop.schedule(
                flushTask, holdNanos, TimeUnit.NANOSECONDS); // the writes until then go together
      }
    }
  }

  /**
   * An ACK left no flush unacknowledged: under an adaptive policy the writes held for it go now,
   * not at the timer.
   */
  private void releaseHeldWrites() {
    if (heldFlush != null && batching.releaseHeldWrites()) {
      heldFlush.cancel(false);
      flushDirty();
    }
  }

  /** Runs after the handoffs queued before it: one flush per plugin connection for all of them. */
  private void flushDirty() {
    flushScheduled = false;
    heldFlush = null;
    for (int i = 0; i < links.size(); i++) {
      links.get(i).flushIfDirty();
    }
    batching.flushed(log.lastSeq());
  }

  // ------------------------------------------------------------------------------------------- for
  // links (on loop)

  EventLoop loop() {
    return loop;
  }

  /** TLS, access control and credential of this repeater's links. */
  LinkSecurity security() {
    return security;
  }

  Bootstrap pluginBootstrap() {
    return pluginBootstrap.clone();
  }

  RetransmissionLog log() {
    return log;
  }

  /** Whether links must stop connecting: closing or deposed. */
  boolean stopped() {
    return closing || deposed;
  }

  /**
   * An ack or a fencing changed what the duplicates hold: trims the log at the lowest seq acked by
   * a non-fenced duplicate (everything if all are fenced), and notes the highest ({@link
   * Long#MAX_VALUE} if all are fenced: nothing is worth keeping), which decides eviction and
   * pausing clients.
   */
  void trim() {
    long lowest = Long.MAX_VALUE;
    long highest = -1;
    for (int i = 0; i < links.size(); i++) {
      DuplicateLink link = links.get(i);
      Transfer transfer = link.transfer();
      if (transfer != null) {
        lowest =
            Math.min(
                lowest, transfer.holdSeq); // the writes after the snapshot are streamed to it next
      } else if (!link.fenced()) {
        lowest = Math.min(lowest, link.ackedSeq());
        highest = Math.max(highest, link.ackedSeq());
        if (admission != null) {
          admission.acked(i, link.ackedSeq());
        }
      }
    }
    highestAckedLive = lowest == Long.MAX_VALUE ? Long.MAX_VALUE : highest;
    batching.acked(highest);
    releaseHeldWrites();
    log.trimThrough(lowest == Long.MAX_VALUE ? log.lastSeq() : lowest);
    resumeClientsIfCaughtUp();
  }

  /** A plugin told us a newer repeater exists: stop sequencing for good. */
  void depose(int duplicateId, String reason) {
    if (deposed || closing) {
      return;
    }
    deposed = true;
    LOG.warn(
        "repeater epoch {} deposed: duplicate {} reports {}; no longer listening, closing every client connection"
            + " (clients move to the next repeater they know) and refusing every WRITE with STALE_EPOCH",
        epoch,
        duplicateId,
        reason);
    for (DuplicateLink link : links) {
      link.shutdown();
    }
    log.clear();
    serverChannel.close();
    for (ClientHandler client : clientHandlers) {
      client.deposed();
    }
    notifyListener(() -> listener.deposed(duplicateId, reason));
  }

  String staleMessage() {
    return "repeater epoch " + epoch + " has been superseded by a newer repeater";
  }

  void notifyChanged(DuplicateView view) {
    notifyListener(() -> listener.duplicateChanged(view));
  }

  void notifyFenced(DuplicateView view, String reason) {
    notifyListener(() -> listener.duplicateFenced(view, reason));
  }

  void notifyPluginError(int duplicateId, ErrorCode code, String message) {
    notifyListener(() -> listener.pluginError(duplicateId, code, message));
  }

  private void notifyListener(Runnable call) {
    ExecutorService executor = events;
    if (executor == null) {
      return;
    }
    try {
      executor.execute(
          () -> {
            try {
              call.run();
            } catch (RuntimeException e) {
              LOG.warn("repeater listener failed", e);
            }
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }
}
