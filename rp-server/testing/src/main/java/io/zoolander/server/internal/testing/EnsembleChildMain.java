package io.zoolander.server.internal.testing;

import io.zoolander.server.ZoolanderPeerMain;
import java.io.IOException;
import java.io.InputStream;

/**
 * Entry point of a child JVM of a {@link io.zoolander.server.testing.ZooKeeperEnsemble}: runs
 * {@link ZoolanderPeerMain} and makes sure the child never outlives the JVM that started it. The
 * parent holds the write end of the child's standard input; when the parent dies, for whatever
 * reason including {@code kill -9}, the child reads end-of-file and exits. The parent process is
 * also watched directly, in case standard input is not a pipe.
 *
 * <p>Exiting runs the shutdown hooks (the plugin is stopped, bounded), then the JVM is halted if it
 * is still there after {@value #HALT_AFTER_MILLIS} ms. Note that {@code Process.destroy()} closes
 * the child's standard input right after sending SIGTERM: the exit that follows joins the shutdown
 * already in progress rather than cutting it short.
 */
public final class EnsembleChildMain {

  /** Exit status of a child that halts because its parent is gone. */
  static final int ORPHANED = 86;

  /** Bound on an orphaned child's graceful exit. */
  static final long HALT_AFTER_MILLIS = 10_000;

  private EnsembleChildMain() {}

  /**
   * @param args the path of the server's {@code zoo.cfg}
   */
  public static void main(String[] args) {
    exitWithParent();
    ZoolanderPeerMain.main(args);
  }

  /**
   * Makes this JVM exit (as described above) when the JVM that started it dies: when standard input
   * reaches end-of-file or the parent process exits.
   */
  static void exitWithParent() {
    watchStdin(System.in);
    ProcessHandle.current()
        .parent()
        .ifPresent(parent -> parent.onExit().thenRun(() -> exit("parent process exited")));
  }

  private static void watchStdin(InputStream in) {
    Thread watcher =
        new Thread(
            () -> {
              byte[] buffer = new byte[256];
              try {
                while (in.read(buffer) >= 0) {
                  // the parent never writes; anything read is ignored
                }
              } catch (IOException e) {
                // treated like end-of-file
              }
              exit("standard input closed");
            },
            "zoolander-parent-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private static void exit(String why) {
    System.err.println("Zoolander child JVM: " + why + ", exiting");
    System.err.flush();
    Thread halter =
        new Thread(
            () -> {
              try {
                Thread.sleep(HALT_AFTER_MILLIS);
              } catch (InterruptedException e) {
                // halt now
              }
              Runtime.getRuntime().halt(ORPHANED);
            },
            "zoolander-halt");
    halter.setDaemon(true);
    halter.start();
    System.exit(
        ORPHANED); // blocks forever if a shutdown is already in progress: that one finishes the job
  }
}
