package io.zoolander.it;

import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Znodes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * Reads one duplicate's application tree directly with a plain ZooKeeper client, to check what it
 * applied.
 */
final class DuplicateReader implements AutoCloseable {
  private final ZooKeeper zk;
  private final Znodes znodes;

  DuplicateReader(String connectString, Znodes znodes) throws Exception {
    this.zk = ZooKeepers.connect(connectString, Duration.ofSeconds(30), Duration.ofSeconds(30));
    this.znodes = znodes;
  }

  /**
   * Problems with a workload client's per-client order in this duplicate (empty when its order
   * held).
   */
  List<String> orderProblems(WriteWorkload.ClientRun run) throws Exception {
    List<String> problems = new ArrayList<>();
    String parent = znodes.toZnode(WriteWorkload.parent(run.client()));
    Stat stat = new Stat();
    zk.getData(parent, false, stat);
    if (stat.getVersion() != run.setDatas()) {
      problems.add(
          parent
              + " version "
              + stat.getVersion()
              + ", expected "
              + run.setDatas()
              + " setData calls");
    }
    List<String> children = new ArrayList<>(zk.getChildren(parent, false));
    Collections.sort(children); // sequential suffixes sort in creation order
    if (children.size() != run.sequentialCreates()) {
      problems.add(
          parent + " has " + children.size() + " children, expected " + run.sequentialCreates());
    }
    int previous = -1;
    for (String child : children) {
      int counter = WriteWorkload.counter(zk.getData(parent + "/" + child, false, null));
      if (counter <= previous) {
        problems.add(parent + "/" + child + " holds counter " + counter + " after " + previous);
      }
      previous = counter;
    }
    return problems;
  }

  /** Problems with a steady load's history in this duplicate (empty when it applied it). */
  List<String> problems(SteadyLoad load) throws Exception {
    return load.problems(zk, znodes);
  }

  byte[] data(String applicationPath, Stat stat) throws Exception {
    return zk.getData(znodes.toZnode(applicationPath), false, stat);
  }

  boolean exists(String applicationPath) throws Exception {
    return zk.exists(znodes.toZnode(applicationPath), false) != null;
  }

  @Override
  public void close() throws InterruptedException {
    zk.close();
  }
}
