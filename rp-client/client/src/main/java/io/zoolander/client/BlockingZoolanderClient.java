package io.zoolander.client;

import io.zoolander.wire.Op;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.zookeeper.KeeperException;

/**
 * The synchronous twins of {@link ZoolanderClient}'s operations: each waits for its future and
 * throws {@link ZoolanderException} on failure (never a checked exception). Obtain one with {@link
 * ZoolanderClient#blocking()}.
 */
public final class BlockingZoolanderClient {
  private final ZoolanderClient client;

  BlockingZoolanderClient(ZoolanderClient client) {
    this.client = client;
  }

  /**
   * The same client for use by the async-first implementation; see {@link
   * ZoolanderClient#blocking()}.
   */
  public static BlockingZoolanderClient of(ZoolanderClient client) {
    return new BlockingZoolanderClient(client);
  }

  public WriteResult write(List<Op> ops) {
    return join(client.write(ops));
  }

  public WriteResult writeAll(List<Op> ops) {
    return join(client.writeAll(ops));
  }

  public WriteResult create(String path, byte[] data) {
    return join(client.create(path, data));
  }

  public WriteResult createSequential(String pathPrefix, byte[] data) {
    return join(client.createSequential(pathPrefix, data));
  }

  public WriteResult setData(String path, byte[] data, int version) {
    return join(client.setData(path, data, version));
  }

  public WriteResult delete(String path, int version) {
    return join(client.delete(path, version));
  }

  public void barrier(long seq) {
    join(client.barrier(seq));
  }

  public void barrier() {
    join(client.barrier());
  }

  public NodeData getData(String path) {
    return join(client.getData(path));
  }

  public boolean exists(String path) {
    return join(client.exists(path));
  }

  public List<String> getChildren(String path) {
    return join(client.getChildren(path));
  }

  public NodeData getData(String path, Watcher watcher) {
    return join(client.getData(path, watcher));
  }

  public boolean exists(String path, Watcher watcher) {
    return join(client.exists(path, watcher));
  }

  public List<String> getChildren(String path, Watcher watcher) {
    return join(client.getChildren(path, watcher));
  }

  public WatchHandle addPersistentRecursiveWatch(String path, Watcher watcher) {
    return join(client.addPersistentRecursiveWatch(path, watcher));
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (ExecutionException | CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof ZoolanderException z) {
        throw z;
      }
      throw new ZoolanderException(KeeperException.Code.SYSTEMERROR, null, cause.toString(), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ZoolanderException(
          KeeperException.Code.OPERATIONTIMEOUT, null, "interrupted while waiting", e);
    }
  }
}
