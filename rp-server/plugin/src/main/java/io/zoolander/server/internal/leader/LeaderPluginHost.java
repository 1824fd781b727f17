package io.zoolander.server.internal.leader;

import io.zoolander.server.LeaderContext;
import io.zoolander.server.LeaderPlugin;
import io.zoolander.server.LeaderPluginFactory;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link LeaderPlugin} per leadership term of one server.
 *
 * <p>{@link #leadershipStarted(LeaderContext)} and {@link #leadershipEnded(String)} are called by
 * ZooKeeper's threads (the leader's {@code QuorumPeer} thread, inside the ZooKeeper server's
 * start-up and shutdown), so neither ever blocks on the plugin for longer than the stop timeout:
 * each term has its own daemon thread that creates, starts and finally stops its plugin. A plugin
 * failure is logged and never propagates into ZooKeeper.
 */
public final class LeaderPluginHost {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderPluginHost.class);

  private final LeaderPluginFactory factory;
  private final Duration stopTimeout;
  private Term active; // guarded by this
  private boolean closed; // guarded by this
  private volatile LeaderPlugin serving; // the running plugin of the active term, if any

  /**
   * @param factory the plugin factory, {@code null} for none (then this host does nothing)
   * @param stopTimeout how long {@link #leadershipEnded(String)} waits for the plugin to stop
   */
  public LeaderPluginHost(LeaderPluginFactory factory, Duration stopTimeout) {
    this.factory = factory;
    this.stopTimeout = stopTimeout;
  }

  /**
   * @return whether a plugin factory is configured
   */
  public boolean hasPlugin() {
    return factory != null;
  }

  /**
   * Starts the plugin of a new leadership term, asynchronously. A term still active is stopped
   * first.
   *
   * @param context the new term
   */
  public void leadershipStarted(LeaderContext context) {
    if (factory == null) {
      LOG.info(
          "Server {} leads (ZooKeeper epoch {}); no leader plugin configured",
          context.serverId(),
          context.epoch());
      return;
    }
    Term previous;
    Term term;
    synchronized (this) {
      if (closed) {
        LOG.info(
            "Server {} leads (ZooKeeper epoch {}) but the plugin host is closed: not starting the plugin",
            context.serverId(),
            context.epoch());
        return;
      }
      previous = active;
      term = new Term(context);
      active = term;
    }
    if (previous != null) {
      previous.stop("a new leadership term began");
    }
    term.begin();
  }

  /**
   * Stops the plugin of the current term, if any, and waits for it at most the stop timeout.
   * Idempotent.
   *
   * @param reason why leadership ended, for the log
   */
  public void leadershipEnded(String reason) {
    Term term;
    synchronized (this) {
      term = active;
      active = null;
    }
    if (term != null) {
      term.stop(reason);
    }
  }

  /**
   * Stops the current plugin, if any, and refuses new terms. Idempotent.
   *
   * @param reason why, for the log
   */
  public void close(String reason) {
    synchronized (this) {
      closed = true;
    }
    leadershipEnded(reason);
  }

  /**
   * @return whether a plugin term is active (started or starting and not yet told to stop)
   */
  public synchronized boolean isActive() {
    return active != null;
  }

  /**
   * Asks the running plugin how long to hold back a client request ({@link
   * LeaderPlugin#clientRequestDelayMs}). Called on ZooKeeper's connection threads for every data
   * request; never blocks.
   *
   * @return the delay in milliseconds; 0 while no plugin runs, or if the plugin throws
   */
  public long clientRequestDelayMs(long sessionId, int xid, boolean write) {
    LeaderPlugin plugin = serving;
    if (plugin == null) {
      return 0;
    }
    try {
      return Math.max(0, plugin.clientRequestDelayMs(sessionId, xid, write));
    } catch (RuntimeException e) {
      LOG.debug("Leader plugin failed to say how long to hold a request; not holding it", e);
      return 0;
    }
  }

  /**
   * Tells the running plugin about background work of its server ({@link
   * LeaderPlugin#backgroundWork}).
   */
  public void backgroundWork(String what, boolean started) {
    LeaderPlugin plugin = serving;
    if (plugin == null) {
      return;
    }
    try {
      plugin.backgroundWork(what, started);
    } catch (RuntimeException e) {
      LOG.warn(
          "Leader plugin failed on background work '{}' {}",
          what,
          started ? "starting" : "ending",
          e);
    }
  }

  private synchronized void serve(Term term, LeaderPlugin plugin) {
    if (active == term) {
      serving = plugin;
    }
  }

  private synchronized void unserve(LeaderPlugin plugin) {
    if (serving == plugin) {
      serving = null;
    }
  }

  private enum Phase {
    STARTING,
    RUNNING,
    STOPPING,
    DONE
  }

  /** One leadership term: one plugin instance on its own thread. */
  private final class Term implements Runnable {

    private final LeaderContext context;
    private final Thread thread;
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final AtomicBoolean stopOnce = new AtomicBoolean();
    private volatile String stopReason = "";
    private Phase phase = Phase.STARTING; // guarded by this

    Term(LeaderContext context) {
      this.context = context;
      this.thread =
          new Thread(this, "zoolander-plugin-" + context.serverId() + "-epoch-" + context.epoch());
      this.thread.setDaemon(true);
    }

    void begin() {
      thread.start();
    }

    @Override
    public void run() {
      LeaderPlugin plugin = createPlugin();
      if (plugin == null) {
        enter(Phase.DONE);
        return;
      }
      if (stopRequested.getCount() == 0) {
        LOG.info(
            "Leadership of server {} (ZooKeeper epoch {}) ended before its plugin started: not starting it",
            context.serverId(),
            context.epoch());
        enter(Phase.DONE);
        return;
      }
      boolean started = startPlugin(plugin);
      if (!enter(Phase.RUNNING)) {
        stopPlugin(plugin, stopReason);
      } else if (!started) {
        stopPlugin(plugin, "releasing what the failed start left");
      } else {
        serve(this, plugin);
        awaitStopRequest();
        stopPlugin(plugin, stopReason);
      }
    }

    /**
     * @return the term's plugin, or null if none could be created (logged)
     */
    private LeaderPlugin createPlugin() {
      try {
        LeaderPlugin plugin = factory.newPlugin();
        if (plugin == null) {
          throw new IllegalStateException(
              factory.getClass().getName() + ".newPlugin() returned null");
        }
        return plugin;
      } catch (Throwable e) {
        if (stopRequested.getCount() == 0) {
          LOG.info(
              "Leader plugin creation on server {} (ZooKeeper epoch {}) ended by stop request: {}",
              context.serverId(),
              context.epoch(),
              e.toString());
        } else {
          LOG.error(
              "Leader plugin of server {} (ZooKeeper epoch {}) could not be created; ZooKeeper keeps serving without it",
              context.serverId(),
              context.epoch(),
              e);
        }
        return null;
      }
    }

    /**
     * @return whether start() returned normally (a failure is logged)
     */
    private boolean startPlugin(LeaderPlugin plugin) {
      LOG.info(
          "Starting leader plugin {} on server {} (ZooKeeper epoch {})",
          plugin.getClass().getName(),
          context.serverId(),
          context.epoch());
      long t0 = System.nanoTime();
      try {
        plugin.start(context);
        LOG.info(
            "Leader plugin started on server {} (ZooKeeper epoch {}) in {} ms",
            context.serverId(),
            context.epoch(),
            (System.nanoTime() - t0) / 1_000_000);
        return true;
      } catch (Throwable e) {
        if (stopRequested.getCount() == 0) {
          LOG.info(
              "Leader plugin start on server {} (ZooKeeper epoch {}) ended by stop request: {}",
              context.serverId(),
              context.epoch(),
              e.toString());
        } else {
          LOG.error(
              "Leader plugin failed to start on server {} (ZooKeeper epoch {}); ZooKeeper keeps serving without it",
              context.serverId(),
              context.epoch(),
              e);
        }
        return false;
      }
    }

    /**
     * Moves to {@code next}, leaving the start phase; clears an interrupt meant for start().
     *
     * @return false if a stop was requested meanwhile
     */
    private boolean enter(Phase next) {
      synchronized (this) {
        if (phase == Phase.STARTING) {
          Thread.interrupted();
        }
        phase = next;
      }
      return stopRequested.getCount() > 0;
    }

    private void awaitStopRequest() {
      boolean interrupted = false;
      while (true) {
        try {
          stopRequested.await();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    private void stopPlugin(LeaderPlugin plugin, String why) {
      unserve(plugin);
      synchronized (this) {
        phase = Phase.STOPPING;
      }
      try {
        plugin.stop();
        LOG.info(
            "Leader plugin stopped on server {} (ZooKeeper epoch {}): {}",
            context.serverId(),
            context.epoch(),
            why);
      } catch (Throwable e) {
        LOG.warn(
            "Leader plugin of server {} (ZooKeeper epoch {}) failed to stop cleanly",
            context.serverId(),
            context.epoch(),
            e);
      } finally {
        synchronized (this) {
          phase = Phase.DONE;
        }
      }
    }

    void stop(String reason) {
      if (!stopOnce.compareAndSet(false, true)) {
        return;
      }
      LOG.info(
          "Stopping leader plugin on server {} (ZooKeeper epoch {}): {}",
          context.serverId(),
          context.epoch(),
          reason);
      stopReason = reason;
      synchronized (this) {
        stopRequested.countDown();
        if (phase == Phase.STARTING) {
          thread.interrupt();
        }
      }
      if (thread == Thread.currentThread()) {
        return; // a plugin that ends its own term from start(): it stops when start returns
      }
      try {
        thread.join(stopTimeout.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (thread.isAlive()) {
        LOG.warn(
            "Leader plugin of server {} (ZooKeeper epoch {}) did not stop within {} ms; abandoning its thread {}",
            context.serverId(),
            context.epoch(),
            stopTimeout.toMillis(),
            thread.getName());
      }
    }
  }
}
