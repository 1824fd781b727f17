package io.zoolander.server.internal.plugin;

import io.zoolander.server.internal.leader.LocalServer;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.ServerCnxn.DisconnectReason;
import org.apache.zookeeper.server.ZoolanderLocalConnection;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The applier's multis submitted in-process into the leader's request pipeline ({@link
 * ZoolanderLocalConnection}): no loopback socket, no client threads, no second serialization, the
 * same ACL checks (against the plugin's ZooKeeper identity) and the same commit. The connection
 * borrows the plugin's own session; when the session is renewed, the next multi opens a connection
 * in the new one. A multi not answered within the session timeout fails with OPERATIONTIMEOUT, as a
 * lost connection would: the applier then reads the state again to learn whether it was applied.
 * Owned by the applier thread.
 */
final class LocalMultis implements Multis {

  private static final Logger LOG = LoggerFactory.getLogger(LocalMultis.class);

  private final ApplierThread owner;
  private final LocalServer server;
  private final OwnSession session;
  private final List<Id> identities;
  private final LongAdder submitted = new LongAdder();
  private ZoolanderLocalConnection connection;

  /**
   * @param digestAuth the plugin's ZooKeeper identity ({@code user:password}), or null
   */
  LocalMultis(ApplierThread owner, LocalServer server, OwnSession session, byte[] digestAuth) {
    this.owner = owner;
    this.server = server;
    this.session = session;
    this.identities = digestAuth == null ? List.of() : List.of(digestId(digestAuth));
  }

  private static Id digestId(byte[] digestAuth) {
    try {
      return new Id(
          "digest",
          DigestAuthenticationProvider.generateDigest(
              new String(digestAuth, java.nio.charset.StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA digest in this JVM", e);
    }
  }

  @Override
  public List<OpResult> multi(List<Op> ops) throws KeeperException, InterruptedException {
    return multi(ops, results -> {});
  }

  @Override
  public List<OpResult> multi(List<Op> ops, Consumer<List<OpResult>> whenApplied)
      throws KeeperException, InterruptedException {
    assert owner.isCurrent() : ApplierThread.ONLY;
    ZooKeeper zk = session.zk();
    if (connection == null || connection.getSessionId() != zk.getSessionId()) {
      if (connection != null) {
        connection.close(DisconnectReason.CLIENT_CLOSED_SESSION);
      }
      connection = server.connect(zk.getSessionId(), zk.getSessionTimeout(), identities);
    }
    CompletableFuture<List<OpResult>> done = new CompletableFuture<>();
    connection.submitMulti(
        ops,
        (rc, results) -> {
          if (done.isDone()) {
            return; // the applier gave up waiting (timeout) and reads the state instead
          }
          if (rc == Code.OK) {
            try {
              whenApplied.accept(results);
            } catch (RuntimeException e) {
              LOG.error("the hook on an applied multi failed; the applier carries on", e);
            }
            done.complete(results);
          } else {
            done.completeExceptionally(new MultiFailed(rc, results));
          }
        });
    submitted.increment();
    try {
      return done.get(zk.getSessionTimeout(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw (KeeperException) e.getCause();
    } catch (TimeoutException e) {
      KeeperException timedOut = KeeperException.create(Code.OPERATIONTIMEOUT);
      done.completeExceptionally(timedOut); // a late answer no longer calls whenApplied
      throw timedOut;
    }
  }

  /** Multis submitted in-process so far. Any thread. */
  long submitted() {
    return submitted.sum();
  }

  /** A failed multi, with every op's result as ZooKeeper's client would give them. */
  private static final class MultiFailed extends KeeperException {
    private static final long serialVersionUID = 1L;
    private final transient List<OpResult> results;

    MultiFailed(Code code, List<OpResult> results) {
      super(code);
      this.results = results;
    }

    @Override
    public List<OpResult> getResults() {
      return results;
    }
  }
}
