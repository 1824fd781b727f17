package io.zoolander.server.internal.testing;

import io.zoolander.server.cli.ZoolanderCommand;

/**
 * Entry point of the child JVM of a {@link io.zoolander.server.testing.RepeaterProcess}: runs
 * {@code zoolander repeater} and, like {@link EnsembleChildMain}, never outlives the JVM that
 * started it.
 */
public final class RepeaterChildMain {

  private RepeaterChildMain() {}

  /**
   * @param args the arguments of {@code zoolander}, e.g. {@code repeater --config
   *     repeater.properties}
   */
  public static void main(String[] args) {
    EnsembleChildMain.exitWithParent();
    ZoolanderCommand.main(args);
  }
}
