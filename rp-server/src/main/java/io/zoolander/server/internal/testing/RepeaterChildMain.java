package io.zoolander.server.internal.testing;

import io.zoolander.server.cli.ZoolanderCommand;

/**
 * Entry point of a repeater in a child JVM (the benchmark's): {@code zoolander repeater} with the given arguments,
 * which never outlives the JVM that started it (see {@link EnsembleChildMain}: the parent holds the child's standard
 * input).
 */
public final class RepeaterChildMain {

    private RepeaterChildMain() {
    }

    /**
     * @param args the arguments of {@code zoolander repeater}, e.g. {@code --config repeater.properties}
     */
    public static void main(String[] args) {
        EnsembleChildMain.exitWithParent();
        String[] command = new String[args.length + 1];
        command[0] = "repeater";
        System.arraycopy(args, 0, command, 1, args.length);
        ZoolanderCommand.main(command);
    }
}
