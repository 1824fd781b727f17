package io.zoolander.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.DocSnippets;
import io.zoolander.testsupport.ProjectRoot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Testcontainers examples of docs/docker.md compile as written, imports included (the other
 * Java blocks of the docs are compiled by zoolander-tools' DocsCompileTest). Needs no Docker.
 */
class DocsCompileTest {

  @Test
  void theTestcontainersExamplesCompile() throws Exception {
    Path page = ProjectRoot.find().resolve("docs/docker.md");
    List<String> errors = new ArrayList<>();
    int compiled = 0;
    for (DocSnippets.Snippet s : DocSnippets.of(page)) {
      if (s.code().contains("import org.testcontainers")) {
        errors.addAll(DocSnippets.compile(s));
        compiled++;
      }
    }
    assertThat(compiled).as("Testcontainers blocks in docker.md").isGreaterThanOrEqualTo(2);
    assertThat(errors).isEmpty();
  }
}
