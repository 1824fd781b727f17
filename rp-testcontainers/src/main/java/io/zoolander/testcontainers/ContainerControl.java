package io.zoolander.testcontainers;

import com.github.dockerjava.api.DockerClient;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.FrameConsumerResultCallback;
import org.testcontainers.containers.output.OutputFrame;

/**
 * Kill and restart of one container, keeping it (and its data): what Testcontainers' stop/start
 * does not do.
 */
final class ContainerControl {
  /** How long a kill may take to show in the container's state. */
  static final Duration KILL_TIMEOUT = Duration.ofSeconds(30);

  private static final long POLL_MS = 50;

  private ContainerControl() {}

  static void kill(GenericContainer<?> container) {
    String id = requireCreated(container);
    DockerClient docker = container.getDockerClient();
    docker.killContainerCmd(id).withSignal("KILL").exec();
    long deadline = System.nanoTime() + KILL_TIMEOUT.toNanos();
    while (Boolean.TRUE.equals(docker.inspectContainerCmd(id).exec().getState().getRunning())) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException(
            "container " + id + " still runs " + KILL_TIMEOUT + " after docker kill");
      }
      try {
        Thread.sleep(POLL_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted while waiting for container " + id + " to stop", e);
      }
    }
  }

  static void restart(GenericContainer<?> container) {
    String id = requireCreated(container);
    DockerClient docker = container.getDockerClient();
    // Testcontainers follows a container's output from its first start only: follow the new run's
    // output too, from
    // about now (docker logs counts in whole seconds, so a line or two of the old run may repeat).
    int since = (int) Instant.now().getEpochSecond();
    docker.startContainerCmd(id).exec();
    if (!container.getLogConsumers().isEmpty()) {
      FrameConsumerResultCallback callback = new FrameConsumerResultCallback();
      for (Consumer<OutputFrame> consumer : container.getLogConsumers()) {
        callback.addConsumer(OutputFrame.OutputType.STDOUT, consumer);
        callback.addConsumer(OutputFrame.OutputType.STDERR, consumer);
      }
      docker
          .logContainerCmd(id)
          .withFollowStream(true)
          .withStdOut(true)
          .withStdErr(true)
          .withSince(since)
          .exec(callback);
    }
  }

  private static String requireCreated(GenericContainer<?> container) {
    String id = container.getContainerId();
    if (id == null) {
      throw new IllegalStateException("the container has not been started");
    }
    return id;
  }
}
