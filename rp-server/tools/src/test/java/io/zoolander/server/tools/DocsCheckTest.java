package io.zoolander.server.tools;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.server.ZoolanderPeerMain;
import io.zoolander.server.cli.ConfigurationReference;
import io.zoolander.server.plugin.ZoolanderPluginConfig;
import io.zoolander.server.security.PluginSecurity;
import io.zoolander.server.tools.DocsChecks.CodeKey;
import io.zoolander.server.tools.DocsChecks.Doc;
import io.zoolander.server.tools.DocsChecks.Shown;
import io.zoolander.testsupport.ProjectRoot;
import io.zoolander.wire.ErrorCode;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The documentation (README.md and docs/*.md) checked against the code, so that it cannot drift:
 * every {@code zoolander} command shown parses, the configuration reference lists exactly the keys
 * and options the code accepts, the error-code table lists every {@link ErrorCode} with its number,
 * and relative links resolve. A failure says what to add or fix, and where. The last tests of each
 * kind feed a made-up page, to show the check catches a mistake.
 */
class DocsCheckTest {

  private static final Path ROOT = ProjectRoot.find();

  private static final List<Doc> DOCS = DocsChecks.read(ROOT);

  private static List<String> commandProblems(List<Doc> docs) {
    List<String> problems = new ArrayList<>();
    for (Doc doc : docs) {
      for (Shown shown : DocsChecks.commands(doc)) {
        problems.addAll(DocsChecks.check(shown));
      }
    }
    return problems;
  }

  // a. commands

  @Test
  void everyZoolanderCommandShownParses() {
    List<Shown> shown = DOCS.stream().flatMap(d -> DocsChecks.commands(d).stream()).toList();
    // The pages show every subcommand at least once: the check has something to check.
    assertThat(shown.stream().filter(Shown::inCodeBlock).map(s -> s.args().get(0)).distinct())
        .contains("demo", "bench", "predict", "plan", "server", "repeater");
    assertThat(commandProblems(DOCS)).isEmpty();
  }

  @Test
  void aMadeUpFlagOrSubcommandInASampleIsCaught() {
    Doc page =
        new Doc(
            "docs/sample.md",
            """
        Run it:

        ```sh
        ./zoolander demo --duplicates 2 --made-up-flag 3     # a comment
        cd /tmp && zoolander frobnicate --now
        java -jar rp-server/target/zoolander.jar plan --example --rate 33 \\
            --target-sla 0.9999 --budget 4
        ./zoolander predict --example --rate many
        ./zoolander repeater
        ```

        Inline, `./zoolander bench --quick --quiet` is caught too, while `zoolander server` may leave out --config.
        """);
    List<String> problems = commandProblems(List.of(page));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:4:")
                    .contains("zoolander demo has no option --made-up-flag"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:5:")
                    .contains("zoolander takes no argument 'frobnicate'"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:6:")
                    .contains("zoolander plan has no option --budget"));
    assertThat(problems)
        .anySatisfy(p -> assertThat(p).startsWith("docs/sample.md:8:").contains("'many'"));
    assertThat(problems)
        .anySatisfy(p -> assertThat(p).startsWith("docs/sample.md:9:").contains("--config"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:12 (inline)")
                    .contains("no option --quiet"));
    assertThat(problems).hasSize(6);
  }

  // b. the configuration reference

  /**
   * Every key the code accepts: zoo.cfg's zoolander.* settings, repeater.properties, every
   * subcommand's options.
   */
  private static List<CodeKey> codeKeys() {
    List<CodeKey> keys = new ArrayList<>();
    ConfigurationReference.serverSettings()
        .forEach(e -> keys.add(new CodeKey("zoo.cfg", e.key(), e.defaultText())));
    // Keys the plugin reads in code, in case one is missing from the server command's list.
    for (Class<?> type :
        List.of(ZoolanderPluginConfig.class, ZoolanderPeerMain.class, PluginSecurity.class)) {
      for (Field f : type.getFields()) {
        if (Modifier.isStatic(f.getModifiers())
            && f.getType() == String.class
            && f.getName().endsWith("_KEY")) {
          String key = (String) get(f);
          if (keys.stream().noneMatch(k -> k.scope().equals("zoo.cfg") && k.key().equals(key))) {
            keys.add(new CodeKey("zoo.cfg", key, null));
          }
        }
      }
    }
    ConfigurationReference.repeaterSettings()
        .forEach(s -> keys.add(new CodeKey("repeater.properties", s.key(), s.defaultText())));
    keys.addAll(DocsChecks.commandOptions());
    return keys;
  }

  private static Object get(Field f) {
    try {
      return f.get(null);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void theConfigurationReferenceListsExactlyTheKeysOfTheCode() {
    List<CodeKey> keys = codeKeys();
    assertThat(keys)
        .extracting(CodeKey::key)
        .contains(
            "zoolander.plugin.port",
            "zoolander.tls.enabled",
            "logCapacity",
            "tls.enabled",
            "--rate");
    assertThat(DocsChecks.checkReference(DOCS, keys)).isEmpty();
  }

  @Test
  void aMissingMadeUpOrStaleKeyInTheReferenceIsCaught() {
    Doc page =
        new Doc(
            "docs/sample.md",
            """
        <!-- config-reference: repeater.properties -->
        | key | default | meaning |
        |---|---|---|
        | `clientPort` | `7000` | stale default |
        | `clientHostname` | | made up |

        <!-- config-reference: zoo.cfg (prefix zoolander.), repeater.properties -->
        | key | default | meaning |
        |---|---|---|
        | `tls.enabled` | `false` | both |
        """);
    List<CodeKey> code =
        List.of(
            new CodeKey("repeater.properties", "clientPort", "0"),
            new CodeKey("repeater.properties", "logCapacity", "65536"),
            new CodeKey("repeater.properties", "tls.enabled", "false"),
            new CodeKey("zoo.cfg", "zoolander.tls.enabled", "false"),
            new CodeKey("zoolander demo", "--rate", "300"));
    List<String> problems = DocsChecks.checkReference(List.of(page), code);
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:4:")
                    .contains("clientPort defaults to `0` in the code"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:5:")
                    .contains("clientHostname", "does not accept"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains(
                        "repeater.properties accepts logCapacity",
                        "add a row | `logCapacity` | `65536` |",
                        "docs/sample.md:4"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains(
                        "no table documents zoolander demo",
                        "<!-- config-reference: zoolander demo -->"));
    assertThat(problems).hasSize(4);
  }

  // c. the error-code table

  private static Map<String, Integer> errorCodes() {
    return Arrays.stream(ErrorCode.values())
        .collect(
            Collectors.toMap(ErrorCode::name, ErrorCode::code, (a, b) -> a, LinkedHashMap::new));
  }

  @Test
  void theTroubleshootingPageListsEveryErrorCodeWithItsNumber() {
    Map<String, List<DocsChecks.Row>> tables =
        DocsChecks.markedTables(DOCS, DocsChecks.ERROR_CODES_MARKER);
    assertThat(tables.get(""))
        .allSatisfy(r -> assertThat(r.where()).startsWith("docs/troubleshooting.md:"));
    assertThat(DocsChecks.checkErrorCodes(DOCS, errorCodes())).isEmpty();
  }

  @Test
  void aMissingOrMisnumberedErrorCodeIsCaught() {
    Doc page =
        new Doc(
            "docs/troubleshooting.md",
            """
        <!-- error-codes -->
        | code | number | means | do |
        |---|---|---|---|
        | `FENCED` | 104 | | |
        | `TIMED_OUT` | 130 | | |
        """);
    List<String> problems =
        DocsChecks.checkErrorCodes(List.of(page), Map.of("FENCED", 103, "NOT_LEADER", 102));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/troubleshooting.md:4:")
                    .contains("FENCED is code 103"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/troubleshooting.md:5:")
                    .contains("TIMED_OUT is not an ErrorCode"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .contains(
                        "NOT_LEADER (102) is missing",
                        "| `NOT_LEADER` | 102 |",
                        "docs/troubleshooting.md"));
    assertThat(problems).hasSize(3);
  }

  // d. links

  @Test
  void relativeLinksBetweenPagesResolve() {
    Map<String, Doc> byName =
        DOCS.stream().collect(Collectors.toMap(Doc::name, Function.identity()));
    assertThat(byName).containsKeys("README.md", "docs/README.md", "docs/troubleshooting.md");
    assertThat(DocsChecks.checkLinks(ROOT, DOCS, byName)).isEmpty();
  }

  @Test
  void aBrokenLinkOrAnchorIsCaught() {
    Doc page =
        new Doc(
            "docs/sample.md",
            """
        # Sample page

        ## `zoolander server`: zoo.cfg

        See [ops](operations.md#settings), [nothing](missing.md), [bad anchor](operations.md#no-such-heading),
        [here](#zoolander-server-zoocfg), [not here](#zoolander-server) and [out](../../etc/passwd).
        `[code](is-not-a-link.md)` and [web](https://example.com/x.md) are not checked.

        ```
        [in a block](neither.md)
        ```
        """);
    Map<String, Doc> byName = Map.of(page.name(), page);
    List<String> problems = DocsChecks.checkLinks(ROOT, List.of(page), byName);
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:5: link missing.md")
                    .contains("does not exist"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:5: link operations.md#no-such-heading")
                    .contains("no heading"));
    assertThat(problems)
        .anySatisfy(p -> assertThat(p).startsWith("docs/sample.md:6: link #zoolander-server:"));
    assertThat(problems)
        .anySatisfy(
            p ->
                assertThat(p)
                    .startsWith("docs/sample.md:6: link ../../etc/passwd")
                    .contains("outside the repository"));
    assertThat(problems).hasSize(4);
  }

  @Test
  void anchorsFollowGitHubsRule() {
    Doc page =
        new Doc(
            "x.md",
            """
        # The client SDK
        ## `zoolander server`: zoo.cfg
        ## Micro-benchmarks (JMH)
        ## Run to run
        ## Run to run
        """);
    assertThat(DocsChecks.anchors(page))
        .containsExactly(
            "the-client-sdk",
            "zoolander-server-zoocfg",
            "micro-benchmarks-jmh",
            "run-to-run",
            "run-to-run-1");
  }
}
