package io.zoolander.testsupport;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * Compiles the Java blocks of a Markdown page as a reader would paste them, so that the docs cannot
 * drift from the API. A block is a {@code ```java} fence; its {@code import} lines stay imports,
 * and the rest is compiled as a whole file if it declares a top-level type, else as statements in a
 * method, else as members of a class (fields and methods, as a JUnit test class shows them). A
 * block must therefore declare or import everything it uses. Compiled against the test's own class
 * path, nothing is run.
 */
public final class DocSnippets {

  /**
   * One block.
   *
   * @param page the Markdown file
   * @param line the page's line of the block's first line, 1-based
   * @param code what the fence holds
   */
  public record Snippet(Path page, int line, String code) {
    @Override
    public String toString() {
      return page.getFileName() + ":" + line;
    }
  }

  private static final Pattern DECLARES_TYPE =
      Pattern.compile(
          "^(@\\w+\\s+)*((public|final|abstract) )*(class|record|interface|enum) \\w+",
          Pattern.MULTILINE);

  private static final Pattern DECLARES_MEMBER =
      Pattern.compile("^(@\\w+|(\\w+ )*[\\w<>\\[\\]]+ \\w+\\([^)]*\\)[^;]*\\{)", Pattern.MULTILINE);

  private DocSnippets() {}

  /** The {@code ```java} blocks of {@code page}, in order. */
  public static List<Snippet> of(Path page) throws IOException {
    List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    List<Snippet> snippets = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals("```java")) {
        StringBuilder code = new StringBuilder();
        int start = i + 2; // the block's first line, 1-based
        for (i++; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
          code.append(lines.get(i)).append('\n');
        }
        snippets.add(new Snippet(page, start, code.toString()));
      }
    }
    return snippets;
  }

  /**
   * Compiles {@code snippet} with the calling JVM's class path.
   *
   * @return the compiler's errors, each with the page's line; empty if it compiles
   */
  public static List<String> compile(Snippet snippet) {
    Objects.requireNonNull(snippet, "snippet");
    // The imports go on the first line, and the rest keeps its lines, so that an error's line
    // maps back onto the page.
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String line : snippet.code().split("\n", -1)) {
      if (line.startsWith("import ")) {
        int comment = line.indexOf("//");
        imports.append(comment < 0 ? line : line.substring(0, comment)).append(' ');
        body.append('\n');
      } else {
        body.append(line).append('\n');
      }
    }
    String head = imports + "\n";
    if (DECLARES_TYPE.matcher(body).find()) {
      return run(snippet, head + body, 0);
    }
    List<String> asStatements =
        run(
            snippet,
            head + "class Snippet {\n  void snippet() throws Exception {\n" + body + "\n  }\n}\n",
            2);
    if (asStatements.isEmpty()) {
      return asStatements;
    }
    List<String> asMembers = run(snippet, head + "class Snippet {\n" + body + "\n}\n", 1);
    // Report the errors of the reading the block looks like: members start a line with an
    // annotation or a method's declaration.
    return asMembers.isEmpty() || DECLARES_MEMBER.matcher(body).find() ? asMembers : asStatements;
  }

  private static List<String> run(Snippet snippet, String source, int linesBefore) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    if (javac == null) {
      throw new IllegalStateException("no Java compiler in this JVM (a JRE?): the docs need a JDK");
    }
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
      Path out = Files.createTempDirectory("doc-snippet-");
      try {
        JavaFileObject unit = new Source(source);
        List<String> options =
            List.of(
                "-classpath",
                System.getProperty("java.class.path"),
                "-d",
                out.toString(),
                "-proc:none",
                "-Xlint:none");
        javac.getTask(null, files, diagnostics, options, null, List.of(unit)).call();
      } finally {
        try (var walk = Files.walk(out)) {
          walk.sorted((a, b) -> b.getNameCount() - a.getNameCount())
              .forEach(p -> p.toFile().delete());
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot compile " + snippet + ": " + e, e);
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        // Source line 1 holds the imports, then linesBefore lines of wrapper, then the block.
        long line = Math.max(snippet.line(), snippet.line() + d.getLineNumber() - 2 - linesBefore);
        errors.add(snippet.page().getFileName() + ":" + line + ": " + d.getMessage(Locale.ROOT));
      }
    }
    return errors;
  }

  private static final class Source extends SimpleJavaFileObject {
    private final String code;

    Source(String code) {
      super(URI.create("string:///Snippet.java"), Kind.SOURCE);
      this.code = code;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return code;
    }
  }
}
