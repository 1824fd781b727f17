package io.zoolander.server.cli;

import io.zoolander.server.settings.Setting;
import java.util.Arrays;
import java.util.List;

/** Text helpers of the commands: wrapped help paragraphs and one-line error messages. */
final class Help {
  private Help() {}

  /**
   * Width of wrapped help text, below picocli's default usage width (80), which would wrap it
   * again.
   */
  static final int WIDTH = 79;

  /** Appends one entry per descriptor: {@code key=default}, then its doc wrapped and indented. */
  static void settings(List<? extends Setting<?>> settings, List<String> lines) {
    for (Setting<?> s : settings) {
      lines.add("  " + s.key() + "=" + s.defaultText());
      wrap(s.doc(), "      ", lines);
    }
  }

  /**
   * Appends {@code text} wrapped at {@link #WIDTH} columns, every line starting with {@code
   * indent}.
   */
  static void wrap(String text, String indent, List<String> lines) {
    StringBuilder line = new StringBuilder(indent);
    String[] words = text.split(" ", -1);
    int count = words.length;
    while (count > 0 && words[count - 1].isEmpty()) {
      count--; // trailing spaces add no empty words
    }
    for (String word : Arrays.asList(words).subList(0, count)) {
      if (line.length() > indent.length() && line.length() + 1 + word.length() > WIDTH) {
        lines.add(line.toString());
        line.setLength(0);
        line.append(indent);
      }
      if (line.length() > indent.length()) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > indent.length()) {
      lines.add(line.toString());
    }
  }

  /**
   * A throwable's message and those of its causes (when they add something), on one line: what a
   * user needs to fix a configuration, without a stack trace.
   */
  static String oneLine(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String message = t.getMessage();
      if (message == null || message.isBlank()) {
        message = t.getClass().getSimpleName();
      }
      if (text.indexOf(message) >= 0) {
        continue;
      }
      if (text.length() > 0) {
        text.append(": ");
      }
      text.append(message);
    }
    return text.toString().replaceAll("\\s*\\R\\s*", " ");
  }
}
