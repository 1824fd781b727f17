package io.zoolander.server.internal.testing;

import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.internal.leader.ZoolanderQuorumPeer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import javax.security.sasl.SaslException;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.quorum.QuorumPeer;
import org.apache.zookeeper.util.ServiceUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One server of a {@link io.zoolander.server.testing.ZooKeeperEnsemble} in {@link
 * io.zoolander.server.testing.ServerMode#IN_PROCESS}: {@link ZoolanderPeerMain} run from the
 * server's {@code zoo.cfg} on a thread of this JVM, exactly as the child JVM's {@code main} runs
 * it, so the leader's {@code QuorumPeer} is the plugin-running one.
 *
 * <p>Several servers in one JVM share what ZooKeeper keeps static or in system properties, which a
 * parse of {@code zoo.cfg} sets ({@code standaloneEnabled}, {@code reconfigEnabled}, {@code
 * zookeeper.forceSync}, {@code zookeeper.admin.enableServer}...) and which ZooKeeper reads while it
 * builds the server (the transaction log reads {@code zookeeper.forceSync} when it is created). So
 * {@link #launch} lets one server at a time of this JVM go from parsing its file to a started
 * {@code QuorumPeer} thread; elections and everything after run concurrently. A follower that
 * truncates its log re-creates it later and reads {@code zookeeper.forceSync} again, as the last
 * launch left it: in-process ensembles of one JVM should agree on fsync.
 *
 * <p>Each server's threads live in a thread group of its own, which every thread ZooKeeper starts
 * for it inherits. A stopped server's non-daemon threads get {@value #THREADS_GRACE_MILLIS} ms to
 * end; those still there are threads ZooKeeper left parked (a {@code LearnerHandler}'s sender whose
 * shutdown raced the follower's sync, for one), which in a JVM of its own would die with it: they
 * are interrupted, so that they cannot keep this JVM alive.
 */
public final class InProcessPeer extends ZoolanderPeerMain {

  private static final Logger LOG = LoggerFactory.getLogger(InProcessPeer.class);

  /**
   * JVM-wide: held from a server's parse of its {@code zoo.cfg} until its {@code QuorumPeer} runs.
   */
  private static final ReentrantLock LAUNCH = new ReentrantLock();

  private static final long POLL_MILLIS = 5;

  /** Bound on waiting for the threads of a server that is being stopped. */
  static final long STOP_WAIT_MILLIS = 30_000;

  /**
   * How long a stopped server's non-daemon threads get to end on their own before they are
   * interrupted.
   */
  static final long THREADS_GRACE_MILLIS = 2_000;

  private final Path configFile;
  private final ThreadGroup threads;
  private final Thread thread;
  private volatile QuorumPeer peer;
  private volatile Throwable failure;
  private volatile boolean stopped;

  private InProcessPeer(String name, Path configFile) {
    this.configFile = configFile;
    this.threads = new ThreadGroup("zoolander-in-process-" + name);
    this.thread = new Thread(threads, this::run, "zoolander-in-process-" + name);
    // Only waits for the QuorumPeer's own (non-daemon) threads; it must not keep a JVM alive by
    // itself.
    this.thread.setDaemon(true);
  }

  /**
   * Starts a server and returns once its {@code QuorumPeer} runs (its election has begun), its
   * start failed, or {@code timeout} passed; the caller then waits for it to serve.
   *
   * @param name names the server's thread, for thread dumps
   * @param configFile the server's {@code zoo.cfg}
   * @param timeout bound on the wait
   * @return the server
   * @throws InterruptedException if interrupted while waiting
   */
  public static InProcessPeer launch(String name, Path configFile, Duration timeout)
      throws InterruptedException {
    InProcessPeer server = new InProcessPeer(name, configFile);
    long deadline = System.nanoTime() + timeout.toNanos();
    LAUNCH.lockInterruptibly();
    try {
      // A fatal server error must end that server, not the JVM that runs the tests.
      ServiceUtils.setSystemExitProcedure(ServiceUtils.LOG_ONLY);
      server.thread.start();
      while (server.thread.isAlive() && !server.peerRuns() && System.nanoTime() - deadline < 0) {
        Thread.sleep(POLL_MILLIS);
      }
    } finally {
      LAUNCH.unlock();
    }
    return server;
  }

  /**
   * @return whether the server's thread is alive: it is starting, serving or electing
   */
  public boolean isRunning() {
    return thread.isAlive();
  }

  /**
   * @return why the server ended on its own (its start failed, typically), if it did
   */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * Stops the server as abruptly as this JVM allows, the in-process stand-in for {@code kill -9}:
   * its client port and every client connection are closed first, so that no client (the plugin's
   * own session included) can say goodbye, then the {@code QuorumPeer} shuts down; returns once the
   * server's threads are gone.
   *
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalStateException if its threads do not end within {@value #STOP_WAIT_MILLIS} ms
   */
  public void kill() throws InterruptedException {
    shutDown(true);
  }

  /**
   * Stops the server cleanly, as SIGTERM does a child JVM: the plugin stops first, while its server
   * still serves (its session ends, its endpoint znode goes), then ZooKeeper shuts down; returns
   * once the server's threads are gone.
   *
   * @throws InterruptedException if interrupted while waiting
   * @throws IllegalStateException if its threads do not end within {@value #STOP_WAIT_MILLIS} ms
   */
  public void stop() throws InterruptedException {
    shutDown(false);
  }

  /**
   * @return the server's {@code QuorumPeer} once it is created, for tests
   */
  Optional<QuorumPeer> quorumPeer() {
    return Optional.ofNullable(peer);
  }

  @Override
  protected QuorumPeer getQuorumPeer() throws SaslException {
    QuorumPeer created = super.getQuorumPeer();
    peer = created;
    return created;
  }

  private void run() {
    try {
      initializeAndRun(new String[] {configFile.toString()});
    } catch (Throwable e) {
      failure = e;
      LOG.error("In-process ZooKeeper server of {} ended", configFile, e);
    }
  }

  private boolean peerRuns() {
    QuorumPeer p = peer;
    return p != null && p.isAlive();
  }

  private void shutDown(boolean abrupt) throws InterruptedException {
    if (stopped) {
      return;
    }
    stopped = true;
    // Also when the server ended on its own (a failed start): what it bound and started is
    // released.
    QuorumPeer p = peer;
    if (p == null) {
      thread.interrupt(); // still launching
    } else {
      if (abrupt) {
        closeClientPort(p);
      } else if (p instanceof ZoolanderQuorumPeer zoolanderPeer) {
        zoolanderPeer
            .pluginHost()
            .close("server stopped"); // as the child's shutdown hook does on SIGTERM
      }
      p.shutdown();
    }
    thread.join(STOP_WAIT_MILLIS);
    if (thread.isAlive()) {
      throw new IllegalStateException(
          "In-process ZooKeeper server of "
              + configFile
              + " did not stop within "
              + STOP_WAIT_MILLIS
              + " ms (thread "
              + thread.getName()
              + ")");
    }
    // The peer was shut down above: close() must not do it twice; it stops the plugin host and
    // drops the hook.
    quorumPeer = null;
    close();
    reapThreads();
  }

  /**
   * Waits for the server's non-daemon threads to end, interrupting those that outlive the grace
   * period.
   */
  private void reapThreads() throws InterruptedException {
    List<Thread> left = awaitNonDaemonThreadsEnd();
    if (left.isEmpty()) {
      return;
    }
    LOG.info(
        "In-process ZooKeeper server of {} stopped but left threads parked; interrupting {}",
        configFile,
        left.stream().map(Thread::getName).toList());
    left.forEach(Thread::interrupt);
    left = awaitNonDaemonThreadsEnd();
    if (!left.isEmpty()) {
      LOG.warn(
          "In-process ZooKeeper server of {} left non-daemon threads that ignore interrupts: {}",
          configFile,
          left.stream().map(Thread::getName).toList());
    }
  }

  /**
   * @return the non-daemon threads of this server still alive after the grace period
   */
  private List<Thread> awaitNonDaemonThreadsEnd() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(THREADS_GRACE_MILLIS);
    while (true) {
      Thread[] found = new Thread[threads.activeCount() + 16];
      int count = threads.enumerate(found, true);
      List<Thread> alive =
          Arrays.stream(found, 0, Math.min(count, found.length))
              .filter(t -> t.isAlive() && !t.isDaemon())
              .toList();
      if (alive.isEmpty() || System.nanoTime() - deadline > 0) {
        return alive;
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /**
   * Closes the listening client socket and every client connection, which also stops the serving
   * server.
   */
  private static void closeClientPort(QuorumPeer p) {
    ZooKeeperServer active = p.getActiveServer();
    ServerCnxnFactory factory = active == null ? null : active.getServerCnxnFactory();
    if (factory != null) {
      factory.shutdown();
    } else {
      p.closeAllConnections(); // electing: nothing serves, the port closes with the peer
    }
  }
}
