package io.zoolander.server.cli;

/** A user error the command reports as one line and a non-zero exit, without a stack trace. */
public final class CliException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CliException(String message) {
    super(message);
  }
}
