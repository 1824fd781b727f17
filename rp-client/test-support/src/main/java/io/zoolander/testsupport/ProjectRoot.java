package io.zoolander.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository's root directory, for tests that check the documentation against the code. */
public final class ProjectRoot {

  private ProjectRoot() {}

  /**
   * The nearest directory at or above the working directory (a module's folder when Maven runs its
   * tests) that holds {@code docs/}, {@code README.md} and {@code rp-server/}.
   *
   * @throws IllegalStateException if there is none
   */
  public static Path find() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.isDirectory(dir.resolve("docs"))
          && Files.isRegularFile(dir.resolve("README.md"))
          && Files.isDirectory(dir.resolve("rp-server"))) {
        return dir;
      }
    }
    throw new IllegalStateException(
        "no repository root (with docs/, README.md, rp-server/) above the working directory");
  }
}
