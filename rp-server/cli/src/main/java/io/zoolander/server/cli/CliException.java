package io.zoolander.server.cli;

/**
 * A user error the command reports as one line and a non-zero exit, without a stack trace. A hint
 * (such as the nearest known key for a misspelled one) follows the message on that line.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String hint;
  private final boolean usage;

  public CliException(String message) {
    this(message, null);
  }

  private CliException(String message, String hint, boolean usage) {
    super(message);
    this.hint = hint;
    this.usage = usage;
  }

  /**
   * A bad command line (a missing option, a flag's value out of range), as opposed to a bad file or
   * a failed start: the command exits 2 and points at its {@code --help}.
   */
  public static CliException usage(String message) {
    return new CliException(message, null, true);
  }

  /** Whether it is a command-line usage error ({@link #usage}): exit status 2, not 1. */
  public boolean isUsage() {
    return usage;
  }

  /**
   * @param hint what may fix it, printed after the message ({@code did you mean clientPort?}); null
   *     for none
   */
  public CliException(String message, String hint) {
    this(message, hint, false);
  }

  /**
   * @return what may fix it, null for none
   */
  public String hint() {
    return hint;
  }

  /**
   * @return the message, then the hint if any: the line the command prints
   */
  public String line() {
    return hint == null ? getMessage() : getMessage() + "; " + hint;
  }
}
