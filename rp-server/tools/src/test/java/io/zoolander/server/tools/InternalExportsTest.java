package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.ProjectRoot;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The qualified exports of Zoolander's {@code internal} packages, enforced on the sources. Module
 * descriptors cannot do it here: ZooKeeper 3.9.5's two jars split the packages {@code
 * org.apache.zookeeper.server.persistence} and {@code .quorum}, so no module that reads both can be
 * a named module, and the plugin must put one class in {@code org.apache.zookeeper.server}. So the
 * build checks what {@code exports ... to ...} would: main code of a module uses another module's
 * internal package only where {@link #EXPORTS} says so, and every entry there is still needed.
 * docs/architecture.md lists the same table.
 */
class InternalExportsTest {
  private static final Path ROOT = ProjectRoot.find();

  /** Internal package -> the modules (artifact ids) it is exported to. */
  static final Map<String, Set<String>> EXPORTS =
      Map.of(
          "io.zoolander.wire.internal",
          Set.of(
              "zoolander-client",
              "zoolander-repeater",
              "zoolander-plugin",
              "zoolander-testing",
              "zoolander-tools"),
          "io.zoolander.server.internal.jmx",
          Set.of("zoolander-plugin", "zoolander-repeater"),
          "io.zoolander.server.internal.zk",
          Set.of("zoolander-plugin", "zoolander-repeater"),
          "io.zoolander.server.internal.security",
          Set.of("zoolander-cli", "zoolander-plugin", "zoolander-repeater"),
          "io.zoolander.server.internal.leader",
          Set.of("zoolander-cli", "zoolander-testing"),
          "io.zoolander.server.internal.testing",
          Set.of("zoolander-tools", "zoolander-testcontainers"));

  private static final Pattern INTERNAL_TYPE =
      Pattern.compile("\\b(io\\.zoolander(?:\\.\\w+)*\\.internal(?:\\.[a-z]\\w*)*)\\.[A-Z]\\w*");

  @Test
  void mainCodeUsesAnotherModulesInternalsOnlyWhereExported() throws IOException {
    Map<String, String> packageOwner = new HashMap<>();
    Map<String, Path> modules = modules();
    for (Map.Entry<String, Path> m : modules.entrySet()) {
      for (Path file : javaFiles(m.getValue().resolve("src/main/java"))) {
        Path dir = m.getValue().resolve("src/main/java").relativize(file.getParent());
        packageOwner.put(dir.toString().replace('/', '.'), m.getKey());
      }
    }
    Map<String, Set<String>> used = new TreeMap<>();
    for (Map.Entry<String, Path> m : modules.entrySet()) {
      for (Path file : javaFiles(m.getValue().resolve("src/main/java"))) {
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
          if (line.startsWith("package ")) {
            continue;
          }
          Matcher t = INTERNAL_TYPE.matcher(line);
          while (t.find()) {
            String owner = packageOwner.get(t.group(1));
            if (owner != null && !owner.equals(m.getKey())) {
              used.computeIfAbsent(t.group(1), k -> new TreeSet<>()).add(m.getKey());
            }
          }
        }
      }
    }
    Map<String, Set<String>> declared = new TreeMap<>();
    EXPORTS.forEach((k, v) -> declared.put(k, new TreeSet<>(v)));
    assertThat(modules).as("modules found").hasSizeGreaterThanOrEqualTo(10);
    assertThat(used)
        .as("internal packages used across modules (left) against the declared exports")
        .isEqualTo(declared);
  }

  /** Artifact id -> module directory, for every module with main sources. */
  private static Map<String, Path> modules() throws IOException {
    Map<String, Path> modules = new TreeMap<>();
    try (Stream<Path> poms = Files.walk(ROOT, 3)) {
      for (Path pom : poms.filter(p -> p.getFileName().toString().equals("pom.xml")).toList()) {
        Path dir = pom.getParent();
        if (dir.toString().contains("/target")
            || !Files.isDirectory(dir.resolve("src/main/java"))) {
          continue;
        }
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        int parentEnd = text.indexOf("</parent>");
        Matcher id =
            Pattern.compile("<artifactId>([^<]+)</artifactId>")
                .matcher(text.substring(Math.max(0, parentEnd)));
        if (id.find()) {
          modules.put(id.group(1), dir);
        }
      }
    }
    return modules;
  }

  private static java.util.List<Path> javaFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return java.util.List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }
}
