package io.zoolander.server.tools;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Reads the Markdown documentation (README.md and docs/*.md) the way {@link DocsCheckTest} checks
 * it against the code: the {@code zoolander} commands shown, the tables marked as configuration
 * reference or error-code table, and the relative links. Every check returns problems as lines that
 * say what to change where; none means the docs agree.
 */
final class DocsChecks {
  private DocsChecks() {}

  /**
   * One Markdown page: its path relative to the repository root (for messages, and to resolve
   * links) and its text.
   */
  record Doc(String name, String text) {
    List<String> lines() {
      return text.lines().toList();
    }
  }

  /**
   * A {@code zoolander} command shown in a page: where, as written, and its arguments after {@code
   * zoolander}.
   */
  record Shown(String where, String text, List<String> args, boolean inCodeBlock) {}

  /** One row of a marked table: where, and its cells (trimmed, without the outer pipes). */
  record Row(String where, List<String> cells) {}

  /** README.md and every docs/*.md page under {@code root}. */
  static List<Doc> read(Path root) {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Doc> read = new ArrayList<>();
    for (Path page : pages) {
      try {
        read.add(
            new Doc(root.relativize(page).toString().replace('\\', '/'), Files.readString(page)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return read;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // a. Commands

  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern COMMAND_START =
      Pattern.compile(
          "^(?:\\$\\s+)?(?:[A-Z_][A-Z0-9_]*=\\S*\\s+)*(?:\\./zoolander|zoolander|java\\s+(?:-\\S+\\s+)*-jar\\s+\\S*zoolander\\.jar)"
              + "(?=\\s|$)(.*)$");
  private static final Pattern INLINE_CODE = Pattern.compile("(`+)(.+?)\\1", Pattern.DOTALL);

  /**
   * Every {@code zoolander} command in a page: lines of fenced or indented code blocks (after a
   * prompt, environment assignments, {@code &&} or {@code ;}), and inline code spans that start
   * with {@code zoolander } or {@code ./zoolander }.
   */
  static List<Shown> commands(Doc doc) {
    List<Shown> shown = new ArrayList<>();
    List<String> lines = doc.lines();
    boolean inFence = false;
    boolean previousBlankOrCode = true;
    StringBuilder prose = new StringBuilder();
    List<Integer> proseLineStarts = new ArrayList<>();
    List<Integer> proseLineNumbers = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        previousBlankOrCode = false;
        continue;
      }
      boolean indentedCode =
          !inFence
              && previousBlankOrCode
              && (line.startsWith("    ") || line.startsWith("\t"))
              && !line.isBlank();
      if (inFence || indentedCode) {
        String joined = line;
        int first = i;
        while (joined.endsWith("\\") && i + 1 < lines.size()) {
          joined = joined.substring(0, joined.length() - 1) + " " + lines.get(++i).strip();
        }
        for (String segment : splitSegments(joined.strip())) {
          Matcher m = COMMAND_START.matcher(segment.strip());
          if (m.matches()) {
            shown.add(
                new Shown(
                    doc.name() + ":" + (first + 1), segment.strip(), shellWords(m.group(1)), true));
          }
        }
        previousBlankOrCode = indentedCode;
        continue;
      }
      previousBlankOrCode = line.isBlank();
      proseLineStarts.add(prose.length());
      proseLineNumbers.add(i + 1);
      prose.append(line).append('\n');
    }
    Matcher m = INLINE_CODE.matcher(prose);
    while (m.find()) {
      String code = m.group(2).replaceAll("\\s+", " ").strip();
      if (m.group(2).contains("\n\n")) {
        continue; // not a code span: backticks in different paragraphs
      }
      Matcher c = Pattern.compile("^(?:\\./zoolander|zoolander) (.*)$").matcher(code);
      if (c.matches()) {
        int line = proseLineNumbers.get(lineIndex(proseLineStarts, m.start()));
        shown.add(
            new Shown(doc.name() + ":" + line + " (inline)", code, shellWords(c.group(1)), false));
      }
    }
    return shown;
  }

  /** The index of the line that holds {@code offset}, given where each line starts. */
  private static int lineIndex(List<Integer> starts, int offset) {
    int line = 0;
    while (line + 1 < starts.size() && starts.get(line + 1) <= offset) {
      line++;
    }
    return line;
  }

  /** A shell line cut at {@code &&}, {@code ||}, {@code ;} and {@code |} outside quotes. */
  private static List<String> splitSegments(String line) {
    List<String> segments = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        }
        current.append(c);
      } else if (c == '\'' || c == '"') {
        quote = c;
        current.append(c);
      } else if (c == ';'
          || c == '|'
          || (c == '&' && i + 1 < line.length() && line.charAt(i + 1) == '&')) {
        segments.add(current.toString());
        current.setLength(0);
        if (i + 1 < line.length() && (line.charAt(i + 1) == '&' || line.charAt(i + 1) == '|')) {
          i++;
        }
      } else {
        current.append(c);
      }
    }
    segments.add(current.toString());
    return segments;
  }

  /** Shell words: quotes and backslashes removed, stopped at a comment or a redirection. */
  static List<String> shellWords(String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = null;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (c == '\'' || c == '"') {
        quote = c;
        word = word == null ? new StringBuilder() : word;
      } else if (c == '\\' && i + 1 < text.length()) {
        word = word == null ? new StringBuilder() : word;
        word.append(text.charAt(++i));
      } else if (Character.isWhitespace(c)) {
        if (word != null) {
          words.add(word.toString());
          word = null;
        }
      } else if (word == null
          && (c == '#' || c == '>' || c == '<' || (c == '2' && text.startsWith("2>", i)))) {
        break;
      } else {
        word = word == null ? new StringBuilder() : word;
        word.append(c);
      }
    }
    if (word != null) {
      words.add(word.toString());
    }
    return words;
  }

  /**
   * Problems of one shown command: an unknown subcommand or option, and, for a command in a code
   * block (which a reader copies and runs), anything the real parser refuses (a missing required
   * option, a value of the wrong type). An inline mention like {@code zoolander server} may leave
   * required options out.
   */
  /**
   * The command line whose subcommands and options the shown commands are looked up in (only read).
   */
  private static final CommandLine STRUCTURE = ZoolanderTools.commandLine();

  static List<String> check(Shown shown) {
    List<String> problems = new ArrayList<>();
    CommandLine top = STRUCTURE;
    CommandLine current = top;
    boolean subcommandSeen = false;
    List<String> args = shown.args();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name = current.getCommandSpec().qualifiedName();
      if (arg.startsWith("-") && arg.length() > 1) {
        String optionName = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
        OptionSpec option = current.getCommandSpec().findOption(optionName);
        if (option == null) {
          problems.add(
              shown.where()
                  + ": `"
                  + shown.text()
                  + "`: "
                  + name
                  + " has no option "
                  + optionName
                  + " (its options: "
                  + optionNames(current.getCommandSpec())
                  + "); fix the page or the command");
          return problems; // what follows (its value) would only repeat the problem
        }
        if (!arg.contains("=") && option.arity().min() > 0) {
          i += option.arity().min(); // its values, which may start with '-'
        }
      } else if (current.getSubcommands().containsKey(arg)) { // nested too: duplicates add
        current = current.getSubcommands().get(arg);
        subcommandSeen = true;
      } else if (current.getCommandSpec().positionalParameters().isEmpty()) {
        problems.add(
            shown.where()
                + ": `"
                + shown.text()
                + "`: "
                + name
                + " takes no argument '"
                + arg
                + "'"
                + (subcommandSeen
                    ? ""
                    : " (subcommands: " + String.join(", ", top.getSubcommands().keySet()) + ")"));
        return problems;
      }
    }
    try {
      ZoolanderTools.commandLine().parseArgs(args.toArray(String[]::new));
    } catch (CommandLine.MissingParameterException e) {
      if (shown.inCodeBlock()) {
        problems.add(shown.where() + ": `" + shown.text() + "` does not parse: " + e.getMessage());
      }
    } catch (CommandLine.ParameterException e) {
      problems.add(shown.where() + ": `" + shown.text() + "` does not parse: " + e.getMessage());
    }
    return problems;
  }

  private static String optionNames(CommandSpec spec) {
    return spec.options().stream()
        .map(OptionSpec::longestName)
        .distinct()
        .collect(Collectors.joining(" "));
  }

  // ---------------------------------------------------------------------------------------------------------------
  // b. The configuration reference

  static final String CONFIG_MARKER = "config-reference";
  private static final Pattern MARKER = Pattern.compile("<!--\\s*([a-z-]+)\\s*:?\\s*(.*?)\\s*-->");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");

  /**
   * The rows of every table marked {@code <!-- NAME: ARGUMENT -->} (the first table after the
   * marker), by argument.
   */
  static Map<String, List<Row>> markedTables(Collection<Doc> docs, String name) {
    Map<String, List<Row>> tables = new LinkedHashMap<>();
    for (Doc doc : docs) {
      List<String> lines = doc.lines();
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = MARKER.matcher(lines.get(i).strip());
        if (!m.matches()
            || !m.group(1).equals(name)) { // a marker is a line of its own, not a mention in prose
          continue;
        }
        List<Row> rows = tables.computeIfAbsent(m.group(2), k -> new ArrayList<>());
        int j = i + 1;
        while (j < lines.size() && !lines.get(j).strip().startsWith("|")) {
          j++;
        }
        boolean header = true;
        for (; j < lines.size() && lines.get(j).strip().startsWith("|"); j++) {
          String row = lines.get(j).strip();
          if (header || row.matches("^\\|[\\s|:-]+\\|?$")) {
            header = false;
            continue;
          }
          rows.add(new Row(doc.name() + ":" + (j + 1), cells(row)));
        }
        if (rows.isEmpty()) {
          rows.add(
              new Row(
                  doc.name() + ":" + (i + 1),
                  List.of())); // a marker without a table: still a place
        }
      }
    }
    return tables;
  }

  private static List<String> cells(String row) {
    String inner =
        row.substring(1, row.endsWith("|") && row.length() > 1 ? row.length() - 1 : row.length());
    List<String> cells = new ArrayList<>();
    for (String cell : inner.split("(?<!\\\\)\\|", -1)) {
      cells.add(cell.strip());
    }
    return cells;
  }

  /**
   * One key the code accepts: where it is accepted (a scope like {@code zoo.cfg}) and its default
   * as text.
   */
  record CodeKey(String scope, String key, String defaultValue) {}

  /**
   * Compares the marked reference tables with the code's keys. A marker's argument lists the scopes
   * its table documents, comma-separated: {@code zoo.cfg}, {@code repeater.properties}, {@code
   * zoolander SUBCOMMAND} (the subcommand's options), each optionally followed by {@code (prefix
   * P)} when the table writes the keys without the prefix {@code P} they have in that scope. A row
   * documents every key in code spans of its first cell; its second cell is the default, checked
   * against the code's when that is a plain value.
   */
  static List<String> checkReference(Collection<Doc> docs, List<CodeKey> code) {
    List<String> problems = new ArrayList<>();
    Map<String, Map<String, Row>> documented = new TreeMap<>(); // scope -> key -> row
    Map<String, String> firstTableOf = new HashMap<>();
    Pattern scopePattern = Pattern.compile("^(.+?)(?:\\s*\\(prefix\\s+(\\S+)\\))?$");
    Set<String> scopes =
        code.stream().map(CodeKey::scope).collect(Collectors.toCollection(LinkedHashSet::new));
    for (Map.Entry<String, List<Row>> table : markedTables(docs, CONFIG_MARKER).entrySet()) {
      for (String scopeText : table.getKey().split(",", -1)) { // an empty one does not match
        Matcher s = scopePattern.matcher(scopeText.strip());
        if (!s.matches()) {
          continue;
        }
        String scope = s.group(1).strip();
        String prefix = s.group(2) == null ? "" : s.group(2);
        if (!scopes.contains(scope)) {
          problems.add(
              table.getValue().get(0).where()
                  + ": the marker <!-- "
                  + CONFIG_MARKER
                  + ": "
                  + table.getKey()
                  + " --> names '"
                  + scope
                  + "', which is none of "
                  + scopes);
          continue;
        }
        firstTableOf.putIfAbsent(
            scope,
            table.getValue().get(0).where()
                + " (the table after <!-- "
                + CONFIG_MARKER
                + ": "
                + table.getKey()
                + " -->)"
                + (prefix.isEmpty() ? "" : ", without the prefix " + prefix));
        for (Row row : table.getValue()) {
          if (row.cells().isEmpty()) {
            continue;
          }
          Matcher k = CODE_SPAN.matcher(row.cells().get(0));
          while (k.find()) {
            String key = k.group(1).strip().split("\\s+", -1)[0];
            documented
                .computeIfAbsent(scope, x -> new LinkedHashMap<>())
                .putIfAbsent(prefix + key, row);
          }
        }
      }
    }
    Map<String, Set<String>> codeKeys = new HashMap<>();
    Map<String, List<String>> undocumentedScopes = new LinkedHashMap<>();
    for (CodeKey key : code) {
      codeKeys.computeIfAbsent(key.scope(), x -> new LinkedHashSet<>()).add(key.key());
      Row row = documented.getOrDefault(key.scope(), Map.of()).get(key.key());
      String place = firstTableOf.get(key.scope());
      if (place == null) {
        undocumentedScopes.computeIfAbsent(key.scope(), x -> new ArrayList<>()).add(key.key());
      } else if (row == null) {
        String defaultCell = key.defaultValue() == null ? "" : "`" + key.defaultValue() + "`";
        problems.add(
            key.scope()
                + " accepts "
                + key.key()
                + " but the configuration reference does not list it: add"
                + " a row | `"
                + key.key()
                + "` | "
                + defaultCell
                + " | what it means | at "
                + place);
      } else if (plain(key.defaultValue())
          && row.cells().size() > 1
          && codeSpans(row.cells().get(0)) == 1
          && !codeSpans(row.cells().get(1), key.defaultValue())) {
        problems.add(
            row.where()
                + ": "
                + key.key()
                + " defaults to `"
                + key.defaultValue()
                + "` in the code, but the"
                + " reference's default cell says '"
                + row.cells().get(1)
                + "': write `"
                + key.defaultValue()
                + "` there");
      }
    }
    undocumentedScopes.forEach(
        (scope, keys) ->
            problems.add(
                "no table documents "
                    + scope
                    + ": add a table marked"
                    + " <!-- "
                    + CONFIG_MARKER
                    + ": "
                    + scope
                    + " --> with a row for each of "
                    + keys
                    + " to a docs/*.md page"
                    + " (docs/operations.md for settings files, docs/cli.md for options)"));
    documented.forEach(
        (scope, keys) ->
            keys.forEach(
                (key, row) -> {
                  if (!codeKeys.getOrDefault(scope, Set.of()).contains(key)) {
                    problems.add(
                        row.where()
                            + ": the reference lists "
                            + key
                            + " for "
                            + scope
                            + ", which the code does not"
                            + " accept: fix the key or remove the row (the code's keys: "
                            + codeKeys.get(scope)
                            + ")");
                  }
                }));
    return problems;
  }

  private static boolean plain(String defaultValue) {
    return defaultValue != null && defaultValue.matches("[A-Za-z0-9_./:,=;-]+");
  }

  private static int codeSpans(String cell) {
    return (int) CODE_SPAN.matcher(cell).results().count();
  }

  private static boolean codeSpans(String cell, String value) {
    return CODE_SPAN.matcher(cell).results().anyMatch(r -> r.group(1).strip().equals(value));
  }

  /**
   * Every option of every {@code zoolander} subcommand, as scope {@code zoolander SUBCOMMAND},
   * except the standard {@code --help} and {@code --version} every command has.
   */
  static List<CodeKey> commandOptions() {
    List<CodeKey> keys = new ArrayList<>();
    for (Map.Entry<String, CommandLine> sub :
        ZoolanderTools.commandLine().getSubcommands().entrySet()) {
      Set<String> seen = new LinkedHashSet<>();
      for (OptionSpec option : sub.getValue().getCommandSpec().options()) {
        if (option.usageHelp() || option.versionHelp() || !seen.add(option.longestName())) {
          continue;
        }
        keys.add(
            new CodeKey("zoolander " + sub.getKey(), option.longestName(), option.defaultValue()));
      }
    }
    return keys;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // c. The error-code table

  static final String ERROR_CODES_MARKER = "error-codes";

  /**
   * Compares the table marked {@code <!-- error-codes -->} with the codes: every name (a code span
   * in the first cell) with its number (the second cell), nothing else.
   */
  static List<String> checkErrorCodes(Collection<Doc> docs, Map<String, Integer> codes) {
    List<String> problems = new ArrayList<>();
    List<Row> rows = markedTables(docs, ERROR_CODES_MARKER).getOrDefault("", List.of());
    if (rows.isEmpty()) {
      return List.of(
          "no table marked <!-- "
              + ERROR_CODES_MARKER
              + " --> in docs/*.md: docs/troubleshooting.md lists"
              + " every ErrorCode in one");
    }
    Map<String, Row> documented = new LinkedHashMap<>();
    for (Row row : rows) {
      if (row.cells().isEmpty()) {
        continue;
      }
      Matcher m = CODE_SPAN.matcher(row.cells().get(0));
      if (!m.find()) {
        problems.add(row.where() + ": the first cell names no error code in `backticks`");
        continue;
      }
      String name = m.group(1).strip();
      documented.put(name, row);
      Integer number = codes.get(name);
      String cell = row.cells().size() > 1 ? row.cells().get(1) : "";
      if (number == null) {
        problems.add(
            row.where()
                + ": "
                + name
                + " is not an ErrorCode (the codes: "
                + codes.keySet()
                + "): fix or remove the row");
      } else if (!cell.replace("`", "").strip().equals(Integer.toString(number))) {
        problems.add(
            row.where()
                + ": "
                + name
                + " is code "
                + number
                + " on the wire, the table's second cell says '"
                + cell
                + "': write "
                + number);
      }
    }
    String place = rows.get(0).where().replaceFirst(":\\d+$", "");
    codes.forEach(
        (name, number) -> {
          if (!documented.containsKey(name)) {
            problems.add(
                "ErrorCode "
                    + name
                    + " ("
                    + number
                    + ") is missing from the error-code table: add a row | `"
                    + name
                    + "` | "
                    + number
                    + " | what it means | what to do | to the table after <!-- "
                    + ERROR_CODES_MARKER
                    + " --> in "
                    + place);
          }
        });
    return problems;
  }

  // ---------------------------------------------------------------------------------------------------------------
  // d. Links

  private static final Pattern INLINE_LINK =
      Pattern.compile("\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern REFERENCE_LINK =
      Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
  private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");

  /**
   * Problems of the relative links of {@code docs}: a target file that does not exist under {@code
   * root}, or a {@code #anchor} that no heading of the target page produces (GitHub's rule: lower
   * case, punctuation dropped, spaces to hyphens, -1, -2... for repeated headings).
   */
  static List<String> checkLinks(Path root, Collection<Doc> docs, Map<String, Doc> byName) {
    List<String> problems = new ArrayList<>();
    for (Doc doc : docs) {
      List<String> lines = withoutCode(doc);
      for (int i = 0; i < lines.size(); i++) {
        List<String> targets = new ArrayList<>();
        Matcher m = INLINE_LINK.matcher(lines.get(i));
        while (m.find()) {
          targets.add(m.group(1));
        }
        Matcher r = REFERENCE_LINK.matcher(lines.get(i));
        if (r.matches()) {
          targets.add(r.group(1));
        }
        for (String target : targets) {
          if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            continue; // http:, https:, mailto:: not checked offline
          }
          String where = doc.name() + ":" + (i + 1) + ": link " + target;
          int hash = target.indexOf('#');
          String file = hash < 0 ? target : target.substring(0, hash);
          String anchor = hash < 0 ? null : target.substring(hash + 1);
          if (file.isEmpty()) {
            Set<String> anchors = anchors(doc);
            if (!anchors.contains(anchor)) {
              problems.add(
                  where
                      + ": "
                      + doc.name()
                      + " has no heading with that anchor (its anchors: "
                      + anchors
                      + ")");
            }
            continue;
          }
          Path resolved = root.resolve(doc.name()).getParent().resolve(file).normalize();
          if (!resolved.startsWith(root.normalize())) {
            problems.add(where + ": points outside the repository");
            continue;
          }
          if (!Files.exists(resolved)) {
            problems.add(where + ": " + root.relativize(resolved) + " does not exist");
            continue;
          }
          if (anchor != null && resolved.toString().endsWith(".md")) {
            String targetName = root.relativize(resolved).toString().replace('\\', '/');
            Doc target2 = byName.get(targetName);
            String text;
            try {
              text = target2 != null ? target2.text() : Files.readString(resolved);
            } catch (IOException e) {
              throw new UncheckedIOException(e);
            }
            Set<String> anchors = anchors(new Doc(targetName, text));
            if (!anchors.contains(anchor)) {
              problems.add(
                  where
                      + ": "
                      + targetName
                      + " has no heading with anchor #"
                      + anchor
                      + " (its anchors: "
                      + anchors
                      + ")");
            }
          }
        }
      }
    }
    return problems;
  }

  /**
   * The page's lines with fenced code blocks and inline code spans blanked, so that code is not
   * taken as links.
   */
  private static List<String> withoutCode(Doc doc) {
    List<String> out = new ArrayList<>();
    boolean inFence = false;
    for (String line : doc.lines()) {
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        out.add("");
      } else {
        out.add(inFence ? "" : line.replaceAll("`[^`]*`", "``"));
      }
    }
    return out;
  }

  /**
   * The anchors GitHub gives the headings of a page, and explicit {@code <a id>} / {@code <a name>}
   * anchors.
   */
  static Set<String> anchors(Doc doc) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    boolean inFence = false;
    for (String line : doc.lines()) {
      if (FENCE.matcher(line).find()) {
        inFence = !inFence;
        continue;
      }
      if (inFence) {
        continue;
      }
      Matcher a = HTML_ANCHOR.matcher(line);
      while (a.find()) {
        anchors.add(a.group(1));
      }
      Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        String slug = slug(h.group(2));
        int n = seen.merge(slug, 1, Integer::sum) - 1;
        anchors.add(n == 0 ? slug : slug + "-" + n);
      }
    }
    return anchors;
  }

  /** GitHub's anchor of a heading's text. */
  static String slug(String heading) {
    String text =
        heading
            .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // links and images: their text
            .replaceAll("<[^>]+>", "") // inline HTML
            .replace("`", "")
            .replace("*", "");
    return text.toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{Nd}\\p{Mn}\\p{Pc} -]", "")
        .replace(' ', '-');
  }
}
