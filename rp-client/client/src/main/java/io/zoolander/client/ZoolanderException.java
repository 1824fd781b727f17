package io.zoolander.client;

import io.zoolander.wire.ErrorCode;
import java.util.Optional;
import org.apache.zookeeper.KeeperException;
import org.jspecify.annotations.Nullable;

/**
 * The one unchecked exception the client throws (sync methods) or completes futures with (async
 * methods). It carries a ZooKeeper-style result code, and, when a Zoolander server refused the
 * request, the wire {@link ErrorCode}.
 */
public class ZoolanderException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final KeeperException.Code code;
  private final transient @Nullable ErrorCode errorCode;

  public ZoolanderException(KeeperException.Code code, String message) {
    this(code, null, message, null);
  }

  public ZoolanderException(
      KeeperException.Code code,
      @Nullable ErrorCode errorCode,
      @Nullable String message,
      @Nullable Throwable cause) {
    super(message, cause);
    this.code = code;
    this.errorCode = errorCode;
  }

  /**
   * The ZooKeeper result code: e.g. {@code NODEEXISTS}, {@code BADVERSION}, {@code
   * OPERATIONTIMEOUT}.
   */
  public KeeperException.Code code() {
    return code;
  }

  /**
   * The Zoolander error a server answered with, if the request was refused by a repeater or plugin.
   */
  public Optional<ErrorCode> errorCode() {
    return Optional.ofNullable(errorCode);
  }
}
