package io.zoolander.server;

/** Test plugin whose start always throws; records its calls in the data directory. */
public final class FailingPluginFactory implements LeaderPluginFactory {

  @Override
  public LeaderPlugin newPlugin() {
    return new LeaderPlugin() {
      private volatile LeaderContext context;

      @Override
      public void start(LeaderContext ctx) {
        context = ctx;
        PluginEvents.record(ctx, "start-failing");
        throw new IllegalStateException("this plugin always fails to start");
      }

      @Override
      public void stop() {
        if (context != null) {
          PluginEvents.record(context, "stop");
        }
      }
    };
  }
}
