package io.zoolander.server.internal.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ThisClassPathTest {
  @Test
  void relativeEntriesBecomeAbsoluteSoAChildInAnotherDirectoryFindsThem() {
    String cwd = Path.of("").toAbsolutePath().toString();
    String classPath =
        String.join(File.pathSeparator, "rp-server/target/zoolander.jar", "", "/opt/lib/a.jar");
    assertThat(ThisClassPath.absolute(classPath).split(File.pathSeparator))
        .containsExactly(
            Path.of(cwd, "rp-server/target/zoolander.jar").toString(), "/opt/lib/a.jar");
  }

  @Test
  void thisJvmsClassPathHasOnlyAbsoluteEntries() {
    for (String entry : ThisClassPath.absolute().split(File.pathSeparator, -1)) {
      assertThat(Path.of(entry).isAbsolute()).as(entry).isTrue();
    }
  }
}
