package io.zoolander.server.cli;

/**
 * A user error the command reports as one line and a non-zero exit, without a stack trace. A hint
 * (such as the nearest known key for a misspelled one) follows the message on that line.
 */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String hint;

  public CliException(String message) {
    this(message, null);
  }

  /**
   * @param hint what may fix it, printed after the message ({@code did you mean clientPort?}); null
   *     for none
   */
  public CliException(String message, String hint) {
    super(message);
    this.hint = hint;
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
