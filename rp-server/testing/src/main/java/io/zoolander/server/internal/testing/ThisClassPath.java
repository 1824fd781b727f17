package io.zoolander.server.internal.testing;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;

/** This JVM's class path for the child JVMs it starts. Internal. */
public final class ThisClassPath {
  private ThisClassPath() {}

  /**
   * This JVM's {@code java.class.path} with every entry made absolute: a child started in another
   * directory (a server's data directory) must find the same jars as {@code java -jar
   * rp-server/tools/target/zoolander.jar} did.
   */
  public static String absolute() {
    return absolute(System.getProperty("java.class.path", ""));
  }

  static String absolute(String classPath) {
    return Arrays.stream(classPath.split(File.pathSeparator))
        .filter(entry -> !entry.isEmpty())
        .map(entry -> Path.of(entry).toAbsolutePath().toString())
        .collect(Collectors.joining(File.pathSeparator));
  }
}
