package io.zoolander.testcontainers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.Future;
import org.testcontainers.images.RemoteDockerImage;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.LazyFuture;

/**
 * The two images a Zoolander deployment runs: the server's ({@code zoolander server}: ZooKeeper
 * with the plugin) and the repeater's. Either existing images ({@link #of}) or images built from a
 * checkout's {@code docker/} directory and runnable jar ({@link #fromSource}). An instance builds
 * (or pulls) each image at most once, when the first container that runs it starts: share one
 * instance between the containers and clusters of a test run.
 */
public final class ZoolanderImages {
  /** The base image of {@code docker/*}/Dockerfile unless another is given. */
  public static final String DEFAULT_BASE_IMAGE = "eclipse-temurin:17-jre";

  /** Tag of the server image {@link #fromSource} builds. */
  public static final String SOURCE_SERVER_TAG = "zoolander/server:local-build";

  /** Tag of the repeater image {@link #fromSource} builds. */
  public static final String SOURCE_REPEATER_TAG = "zoolander/repeater:local-build";

  /**
   * The runnable jar the images are built from, relative to the checkout's root ({@code mvn
   * package} makes it).
   */
  public static final String JAR_PATH = "rp-server/cli/target/zoolander-server.jar";

  private final Future<String> server;
  private final Future<String> repeater;

  private ZoolanderImages(Future<String> server, Future<String> repeater) {
    this.server = server;
    this.repeater = repeater;
  }

  /**
   * Existing images, pulled when the engine does not have them, e.g. ones built with {@code
   * docker/}'s Dockerfiles.
   */
  public static ZoolanderImages of(DockerImageName server, DockerImageName repeater) {
    Objects.requireNonNull(server, "server image must not be null");
    Objects.requireNonNull(repeater, "repeater image must not be null");
    return new ZoolanderImages(new RemoteDockerImage(server), new RemoteDockerImage(repeater));
  }

  /** {@link #fromSource(Path, String)} on {@link #DEFAULT_BASE_IMAGE}. */
  public static ZoolanderImages fromSource(Path projectRoot) {
    return fromSource(projectRoot, DEFAULT_BASE_IMAGE);
  }

  /**
   * Images built from a checkout of Zoolander: {@code docker/server/Dockerfile} and {@code
   * docker/repeater/Dockerfile} with the checkout's {@value #JAR_PATH}, on {@code baseImage} (any
   * image with a Java 17 runtime and bash), tagged {@value #SOURCE_SERVER_TAG} and {@value
   * #SOURCE_REPEATER_TAG} and kept, so that a later build reuses its layers. The engine uses {@code
   * baseImage} as it is when it has it, and pulls it otherwise.
   *
   * @throws IllegalArgumentException if {@code projectRoot} has no {@code docker/} directory
   */
  public static ZoolanderImages fromSource(Path projectRoot, String baseImage) {
    Objects.requireNonNull(projectRoot, "projectRoot must not be null");
    Objects.requireNonNull(baseImage, "baseImage must not be null");
    if (baseImage.isBlank()) {
      throw new IllegalArgumentException("baseImage must not be blank");
    }
    Path root = projectRoot.toAbsolutePath().normalize();
    if (!Files.isDirectory(root.resolve("docker/server"))
        || !Files.isDirectory(root.resolve("docker/repeater"))) {
      throw new IllegalArgumentException(
          "projectRoot " + root + " has no docker/server and docker/repeater");
    }
    return new ZoolanderImages(
        build(root, "server", SOURCE_SERVER_TAG, baseImage),
        build(root, "repeater", SOURCE_REPEATER_TAG, baseImage));
  }

  // withDockerfilePath is deprecated in favour of withDockerfile(Path), which makes the
  // Dockerfile's own directory the
  // context and pre-pulls its base image through Testcontainers; the images need the repository
  // root as context.
  @SuppressWarnings("deprecation")
  private static Future<String> build(Path root, String flavour, String tag, String baseImage) {
    Path jar = root.resolve(JAR_PATH);
    // The same context as `docker build -f docker/<flavour>/Dockerfile .` at the root, less what
    // .dockerignore drops.
    // The Dockerfile is named by its path in the context, so Testcontainers does not pre-pull the
    // base image itself:
    // the engine uses a local one as it is.
    ImageFromDockerfile image =
        new ImageFromDockerfile(tag, false)
            .withFileFromPath(JAR_PATH, jar)
            .withFileFromPath("docker/" + flavour, root.resolve("docker/" + flavour))
            .withDockerfilePath("docker/" + flavour + "/Dockerfile")
            .withBuildArg("BASE_IMAGE", baseImage);
    return new LazyFuture<>() {
      @Override
      protected String resolve() {
        if (!Files.isRegularFile(jar)) {
          throw new IllegalStateException(
              jar + " is missing: build it first (mvn -B package -DskipTests)");
        }
        return image.get(); // LazyFuture: builds once, then hands out the name
      }
    };
  }

  /** The server image's name, once built or pulled. */
  public Future<String> server() {
    return server;
  }

  /** The repeater image's name, once built or pulled. */
  public Future<String> repeater() {
    return repeater;
  }
}
