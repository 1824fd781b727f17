package io.zoolander.server.internal.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.zoolander.testsupport.StandaloneZooKeeper;
import io.zoolander.testsupport.ZooKeepers;
import io.zoolander.wire.Op;
import io.zoolander.wire.OpResult;
import io.zoolander.wire.Znodes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Predicting a successful multi's results from its ops and a few stats (real ZooKeeper:
 * ZoolanderPluginRetryTest).
 */
class ResultPredictorTest {

  private static final Znodes ZNODES = new Znodes("/zl");
  private static final byte[] NO_DATA = new byte[0];

  private final ResultPredictor predictor = new ResultPredictor(ZNODES);

  /** A node none of whose children was ever deleted: its cversion counts its creates. */
  private static Stat stat(int version, int cversion) {
    return stat(version, cversion, cversion);
  }

  private static Stat stat(int version, int cversion, int numChildren) {
    Stat stat = new Stat();
    stat.setVersion(version);
    stat.setCversion(cversion);
    stat.setNumChildren(numChildren);
    return stat;
  }

  @Test
  void aSequentialCreateAfterAChildWasDeletedIsNamedAsZooKeeperNamesIt(@TempDir Path dir)
      throws Exception {
    try (StandaloneZooKeeper server = StandaloneZooKeeper.start(dir)) {
      ZooKeeper zk = ZooKeepers.connect(server.connectString());
      try {
        for (String path : List.of("/zl", "/zl/data", "/zl/data/q")) {
          zk.create(path, NO_DATA, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
        }
        // A lock recipe: a few sequential children, the first ones deleted again.
        for (int i = 0; i < 3; i++) {
          zk.create(
              "/zl/data/q/n-",
              NO_DATA,
              ZooDefs.Ids.OPEN_ACL_UNSAFE,
              CreateMode.PERSISTENT_SEQUENTIAL);
        }
        zk.delete("/zl/data/q/n-0000000000", -1);
        zk.delete("/zl/data/q/n-0000000001", -1);

        List<Op> ops =
            List.of(Op.createSequential("/q/n-", NO_DATA), Op.createSequential("/q/n-", NO_DATA));
        assertThat(predictor.statsNeeded(ops)).containsExactly("/zl/data/q");
        Stat parent = zk.exists("/zl/data/q", false);
        ResultPredictor.Prediction prediction =
            predictor.predict(ops, Map.of("/zl/data/q", parent));
        List<String> actual = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          actual.add(
              zk.create(
                      "/zl/data/q/n-",
                      NO_DATA,
                      ZooDefs.Ids.OPEN_ACL_UNSAFE,
                      CreateMode.PERSISTENT_SEQUENTIAL)
                  .substring("/zl/data".length()));
        }
        assertThat(prediction.results())
            .containsExactly(
                new OpResult.Created(actual.get(0)), new OpResult.Created(actual.get(1)));

        // Remembered, after another delete: the next name still follows ZooKeeper's count.
        predictor.applied(prediction);
        zk.delete("/zl/data/q/n-0000000002", -1);
        List<Op> next =
            List.of(Op.delete("/q/n-0000000003", -1), Op.createSequential("/q/n-", NO_DATA));
        assertThat(predictor.statsNeeded(next)).isEmpty();
        ResultPredictor.Prediction third = predictor.predict(next, Map.of());
        zk.delete("/zl/data/q/n-0000000003", -1);
        String created =
            zk.create(
                    "/zl/data/q/n-",
                    NO_DATA,
                    ZooDefs.Ids.OPEN_ACL_UNSAFE,
                    CreateMode.PERSISTENT_SEQUENTIAL)
                .substring("/zl/data".length());
        assertThat(third.results())
            .containsExactly(new OpResult.Deleted(), new OpResult.Created(created));
      } finally {
        zk.close();
      }
    }
  }

  @Test
  void resultsThatFollowFromTheOpsNeedNoStats() {
    List<Op> ops =
        List.of(
            Op.create("/a", NO_DATA),
            Op.setData("/b", NO_DATA, 4),
            Op.delete("/c", 2),
            Op.check("/d", 0));
    assertThat(predictor.statsNeeded(ops)).isEmpty();
    assertThat(predictor.predict(ops, Map.of()).results())
        .containsExactly(
            new OpResult.Created("/a"),
            new OpResult.DataSet(5),
            new OpResult.Deleted(),
            new OpResult.Checked());
  }

  @Test
  void anUnconditionalSetDataAddsOneToTheVersionItFinds() {
    List<Op> ops =
        List.of(
            Op.setData("/x", NO_DATA, -1),
            Op.setData("/x", NO_DATA, -1),
            Op.create("/y", NO_DATA),
            Op.setData("/y", NO_DATA, -1));
    assertThat(predictor.statsNeeded(ops)).containsExactly("/zl/data/x");
    assertThat(predictor.predict(ops, Map.of("/zl/data/x", stat(6, 0))).results())
        .containsExactly(
            new OpResult.DataSet(7),
            new OpResult.DataSet(8),
            new OpResult.Created("/y"),
            new OpResult.DataSet(1));
  }

  @Test
  void aSequentialCreateIsNamedAfterItsParentsCversionWhichCreatesButNotDeletesRaise() {
    List<Op> ops =
        List.of(
            Op.createSequential("/q/n-", NO_DATA),
            Op.create("/q/plain", NO_DATA),
            Op.delete("/q/old", -1),
            Op.createSequential("/q/", NO_DATA),
            Op.createSequential("/", NO_DATA));
    assertThat(predictor.statsNeeded(ops)).containsExactly("/zl/data/q", "/zl/data");
    assertThat(
            predictor
                .predict(ops, Map.of("/zl/data/q", stat(0, 41), "/zl/data", stat(0, 3)))
                .results())
        .containsExactly(
            new OpResult.Created("/q/n-0000000041"),
            new OpResult.Created("/q/plain"),
            new OpResult.Deleted(),
            new OpResult.Created("/q/0000000043"),
            new OpResult.Created("/0000000003"));
  }

  @Test
  void aParentCreatedByTheSameWriteStartsAtCversionZero() {
    List<Op> ops =
        List.of(
            Op.create("/p", NO_DATA),
            Op.createSequential("/p/s-", NO_DATA),
            Op.createSequential("/p/s-", NO_DATA));
    assertThat(predictor.statsNeeded(ops)).isEmpty();
    assertThat(predictor.predict(ops, Map.of()).results())
        .containsExactly(
            new OpResult.Created("/p"),
            new OpResult.Created("/p/s-0000000000"),
            new OpResult.Created("/p/s-0000000001"));
  }

  @Test
  void aWriteThatCannotSucceedHasNoPrediction() {
    Map<String, Stat> absent = new HashMap<>();
    absent.put("/zl/data/missing", null);
    assertThat(predictor.predict(List.of(Op.setData("/missing", NO_DATA, -1)), absent).results())
        .isNull();
    assertThat(
            predictor
                .predict(List.of(Op.createSequential("/missing/n-", NO_DATA)), absent)
                .results())
        .isNull();
    List<Op> deletedFirst = List.of(Op.delete("/x", -1), Op.setData("/x", NO_DATA, -1));
    assertThat(predictor.predict(deletedFirst, Map.of("/zl/data/x", stat(1, 0))).results())
        .isNull();
  }

  @Test
  void whatAnAppliedWriteChangedIsRememberedUntilForgotten() {
    List<Op> first = List.of(Op.setData("/x", NO_DATA, -1), Op.createSequential("/q/n-", NO_DATA));
    ResultPredictor.Prediction p =
        predictor.predict(first, Map.of("/zl/data/x", stat(2, 0), "/zl/data/q", stat(0, 5)));
    assertThat(p.results())
        .containsExactly(new OpResult.DataSet(3), new OpResult.Created("/q/n-0000000005"));
    predictor.applied(p);

    List<Op> again =
        List.of(
            Op.setData("/x", NO_DATA, -1),
            Op.createSequential("/q/n-", NO_DATA),
            Op.setData("/q/n-0000000005", NO_DATA, -1));
    assertThat(predictor.statsNeeded(again)).as("all known now").isEmpty();
    ResultPredictor.Prediction second = predictor.predict(again, Map.of());
    assertThat(second.results())
        .containsExactly(
            new OpResult.DataSet(4),
            new OpResult.Created("/q/n-0000000006"),
            new OpResult.DataSet(1));
    // Not applied (it failed, say): the cache still has the state before it.
    assertThat(predictor.predict(again, Map.of()).results()).isEqualTo(second.results());

    List<Op> delete = List.of(Op.delete("/x", -1));
    predictor.applied(predictor.predict(delete, Map.of()));
    assertThat(predictor.statsNeeded(List.of(Op.setData("/x", NO_DATA, -1))))
        .as("known absent")
        .isEmpty();
    assertThat(predictor.predict(List.of(Op.setData("/x", NO_DATA, -1)), Map.of()).results())
        .isNull();

    predictor.forget();
    assertThat(predictor.knownNodes()).isZero();
    assertThat(predictor.statsNeeded(again))
        .containsExactly("/zl/data/x", "/zl/data/q", "/zl/data/q/n-0000000005");
  }

  @Test
  void statsOfAFailedWriteAreStillTrue() {
    Map<String, Stat> stats = Map.of("/zl/data/x", stat(9, 0));
    predictor.learn(stats);
    assertThat(predictor.statsNeeded(List.of(Op.setData("/x", NO_DATA, -1)))).isEmpty();
    assertThat(predictor.predict(List.of(Op.setData("/x", NO_DATA, -1)), Map.of()).results())
        .containsExactly(new OpResult.DataSet(10));
  }
}
