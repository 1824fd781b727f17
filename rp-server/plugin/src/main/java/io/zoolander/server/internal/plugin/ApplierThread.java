package io.zoolander.server.internal.plugin;

import java.util.concurrent.ThreadFactory;

/**
 * The applier's one thread, recorded when its executor makes it, so that the classes it owns can
 * check they run on it: {@code assert thread.isCurrent() : ApplierThread.ONLY}. Thread-safe.
 */
final class ApplierThread implements ThreadFactory {

  /** The message of a failed assertion. */
  static final String ONLY = "must run on the applier thread";

  private final String name;
  private volatile Thread thread;

  /**
   * @param name the thread's name
   */
  ApplierThread(String name) {
    this.name = name;
  }

  /**
   * Makes the applier thread (a daemon); a single-thread executor asks again only if its thread
   * died, and the new thread is the owner from then on.
   */
  @Override
  public Thread newThread(Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    thread = t;
    return t;
  }

  /**
   * @return whether the calling thread is the applier thread
   */
  boolean isCurrent() {
    return Thread.currentThread() == thread;
  }
}
