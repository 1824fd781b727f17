package io.zoolander.testcontainers;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.images.builder.Transferable;

/**
 * The plugins' ZooKeeper identity (digest scheme) as the images take it: the user in {@code
 * ZOOLANDER_ZOOKEEPER_USER}, the password in a file the entry point names in the configuration
 * ({@code ZOOLANDER_ZOOKEEPER_PASSWORD_FILE}), copied into the container before it starts.
 */
final class ZooKeeperIdentity {
  /** Where the password file goes in the container (the images' default, as compose secrets). */
  static final String PASSWORD_FILE = "/run/secrets/zookeeper-password";

  private ZooKeeperIdentity() {}

  /**
   * @throws IllegalArgumentException if {@code user} is empty or holds ':', or {@code password} is
   *     empty
   */
  static void check(String user, String password) {
    Objects.requireNonNull(user, "user must not be null");
    Objects.requireNonNull(password, "password must not be null");
    if (user.isEmpty() || user.contains(":")) {
      throw new IllegalArgumentException(
          "user must be non-empty and must not contain ':', was '" + user + "'");
    }
    if (password.isEmpty()) {
      throw new IllegalArgumentException("password must not be empty");
    }
  }

  /** Gives {@code container} the identity {@code user:password}. */
  static void apply(GenericContainer<?> container, String user, String password) {
    check(user, password);
    container.withEnv("ZOOLANDER_ZOOKEEPER_USER", user);
    container.withEnv("ZOOLANDER_ZOOKEEPER_PASSWORD_FILE", PASSWORD_FILE);
    // Readable by the image's unprivileged user; the container is a test's.
    container.withCopyToContainer(
        Transferable.of(password.getBytes(StandardCharsets.UTF_8), 0444), PASSWORD_FILE);
  }
}
