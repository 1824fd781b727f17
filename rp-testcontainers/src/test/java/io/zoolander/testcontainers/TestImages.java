package io.zoolander.testcontainers;

import com.github.dockerjava.api.exception.NotFoundException;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;

/** The images the container tests run: built from this checkout's docker/ and this build's jar. */
final class TestImages {
  /**
   * The Java base image .ci/docker-up builds where no registry is reachable; elsewhere the
   * Dockerfiles' default.
   */
  private static final String LOCAL_BASE_IMAGE = "zoolander-base:local";

  private TestImages() {}

  /**
   * Images built from the checkout the build runs in (the {@code zoolander.projectRoot} property
   * the module's surefire configuration sets), on the local base image when the engine has it.
   */
  static ZoolanderImages fromSource() {
    Path projectRoot =
        Path.of(System.getProperty("zoolander.projectRoot", "..")).toAbsolutePath().normalize();
    return ZoolanderImages.fromSource(projectRoot, baseImage());
  }

  private static String baseImage() {
    try {
      DockerClientFactory.instance().client().inspectImageCmd(LOCAL_BASE_IMAGE).exec();
      return LOCAL_BASE_IMAGE;
    } catch (NotFoundException e) {
      return ZoolanderImages.DEFAULT_BASE_IMAGE;
    }
  }
}
