package io.zoolander.server.tools;

import static io.zoolander.server.tools.CliRun.run;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The help of {@code zoolander} and of every subcommand: each option listed once, every description
 * formatted (picocli warns about a bare {@code %}), and each command's summary in the command list
 * a whole sentence.
 */
class HelpTest {
  private static final String[] COMMANDS = {
    "demo", "bench", "predict", "plan", "server", "repeater", "duplicates", "partitions"
  };
  // An option's own line: "  -h, --help" or six spaces then "--name" (descriptions wrap deeper).
  private static final Pattern OPTION_LINE = Pattern.compile("(?m)^(?:  -\\w, |      )(--[\\w-]+)");

  /** Every command under {@code zoolander}, nested ones too, as its argument list. */
  private static List<List<String>> everyCommand() {
    List<List<String>> commands = new ArrayList<>();
    collect(ZoolanderTools.commandLine(), new ArrayList<>(), commands);
    return commands;
  }

  private static void collect(CommandLine command, List<String> path, List<List<String>> commands) {
    for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
      if (sub.getValue().getCommandSpec().usageMessage().hidden()
          || !sub.getKey().equals(sub.getValue().getCommandName())) {
        continue; // an alias names a command listed under its own name
      }
      List<String> subPath = new ArrayList<>(path);
      subPath.add(sub.getKey());
      commands.add(subPath);
      collect(sub.getValue(), subPath, commands);
    }
  }

  @Test
  void theListedCommandsAreAllThereAre() {
    assertThat(everyCommand().stream().filter(c -> c.size() == 1).map(c -> c.get(0)))
        .containsExactlyInAnyOrder(COMMANDS);
    assertThat(everyCommand()).as("nested commands are walked too").anyMatch(c -> c.size() == 2);
  }

  @Test
  void everySubcommandListsEachOptionOnceAndFormatsEveryDescription() {
    for (List<String> path : everyCommand()) {
      String command = String.join(" ", path);
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      // picocli warns on the JVM's standard error, not on the command's error writer.
      ByteArrayOutputStream warnings = new ByteArrayOutputStream();
      PrintStream standardError = System.err;
      CliRun r;
      System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
      try {
        r = run(args.toArray(String[]::new));
      } finally {
        System.setErr(standardError);
      }
      assertThat(r.exit()).as(command).isZero();
      assertThat(r.out() + r.err() + warnings.toString(StandardCharsets.UTF_8))
          .as(command)
          .doesNotContain("picocli WARN");
      Map<String, Integer> listed = new HashMap<>();
      Matcher m = OPTION_LINE.matcher(r.out());
      while (m.find()) {
        listed.merge(m.group(1), 1, Integer::sum);
      }
      assertThat(listed).as("options of %s", command).isNotEmpty();
      listed.forEach(
          (option, times) -> assertThat(times).as("%s %s listed", command, option).isEqualTo(1));
    }
  }

  @Test
  void theCommandListGivesEachCommandAWholeSentence() {
    CliRun r = run("--help");
    assertThat(r.exit()).isZero();
    String list = r.out().substring(r.out().indexOf("Commands:"));
    for (String command : COMMANDS) {
      Matcher m =
          Pattern.compile("(?s)\\n  " + command + "\\s+(.*?)(?=\\n  \\w|\\z)").matcher(list);
      assertThat(m.find()).as(command).isTrue();
      assertThat(m.group(1).strip()).as("summary of %s", command).endsWith(".");
    }
  }
}
