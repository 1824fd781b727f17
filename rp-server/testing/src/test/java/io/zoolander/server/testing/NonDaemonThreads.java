package io.zoolander.server.testing;

import io.zoolander.testsupport.Await;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The live non-daemon threads of this JVM: any of them keeps the JVM from exiting once {@code main}
 * returns.
 */
final class NonDaemonThreads {

  private NonDaemonThreads() {}

  /**
   * @return the live non-daemon threads now
   */
  static Set<Thread> now() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !t.isDaemon())
        .collect(Collectors.toSet());
  }

  /**
   * Waits until every live non-daemon thread is one of {@code before}: threads that end on their
   * own after a quiet period (Netty's global executor, for one) get {@code timeout} to do so.
   */
  static void awaitNoneBut(Set<Thread> before, Duration timeout) throws InterruptedException {
    Await.await(
        timeout,
        "no non-daemon thread left but those that ran before",
        () -> newOnes(before).isEmpty(),
        () ->
            newOnes(before).stream()
                .map(
                    t ->
                        t.getName()
                            + " "
                            + Arrays.stream(t.getStackTrace())
                                .limit(8)
                                .map(StackTraceElement::toString)
                                .collect(Collectors.joining("\n    at ", "\n    at ", "")))
                .collect(Collectors.joining("\n")));
  }

  private static Set<Thread> newOnes(Set<Thread> before) {
    Set<Thread> left = now();
    left.removeAll(before);
    return left;
  }
}
