package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.DocSnippets;
import io.zoolander.testsupport.ProjectRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of the docs compiles as written, imports included, against the published modules
 * (the blocks that use Testcontainers are compiled by zoolander-testcontainers' own test).
 */
class DocsCompileTest {
  private static final Path DOCS = ProjectRoot.find().resolve("docs");

  @Test
  void everyJavaBlockOfTheDocsCompiles() throws Exception {
    List<DocSnippets.Snippet> snippets = new ArrayList<>();
    try (Stream<Path> pages = Files.list(DOCS)) {
      for (Path page : pages.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        snippets.addAll(DocSnippets.of(page));
      }
    }
    List<String> errors = new ArrayList<>();
    int compiled = 0;
    for (DocSnippets.Snippet s : snippets) {
      if (s.code().contains("import org.testcontainers")) {
        continue;
      }
      errors.addAll(DocSnippets.compile(s));
      compiled++;
    }
    assertThat(compiled).as("blocks compiled").isGreaterThanOrEqualTo(12);
    assertThat(errors).isEmpty();
  }
}
