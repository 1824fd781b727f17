package io.zoolander.server.security;

import io.zoolander.server.internal.security.LinkSecurity;
import io.zoolander.server.internal.security.SecurityKeys;
import io.zoolander.server.settings.Setting;
import io.zoolander.wire.AccessControl;
import io.zoolander.wire.Role;
import io.zoolander.wire.TlsSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The plugin's security settings, read from the {@code zoolander.*} entries of a duplicate's {@code
 * zoo.cfg}; all off by default (the plugin then behaves as before security existed). Every key is
 * described in {@link #SETTINGS}; see {@code docs/operations.md}, section Security.
 *
 * <ul>
 *   <li>TLS on the plugin's listener ({@code zoolander.tls.*}), optionally mutual.
 *   <li>Who may connect in which role: {@code zoolander.auth.allow.repeater} (who may send
 *       SEQUENCED) and {@code zoolander.auth.allow.client} (who may read and receive replies; open
 *       when absent), with the shared secrets in {@code zoolander.auth.secretsFile} or TLS client
 *       certificates.
 *   <li>The plugin's ZooKeeper identity ({@code zoolander.zookeeper.user} and {@code
 *       zoolander.zookeeper.passwordFile}, digest scheme): the base path, the data root, the
 *       bookkeeping znodes and every znode the plugin creates get an ACL that lets only that
 *       identity write, and everyone read.
 * </ul>
 */
public final class PluginSecurity {
  /** Prefix of every key in zoo.cfg. */
  public static final String PREFIX = "zoolander.";

  /** Key of the plugin's ZooKeeper digest user. */
  public static final String ZOOKEEPER_USER_KEY = PREFIX + "zookeeper.user";

  /** Key of the file holding the plugin's ZooKeeper digest password. */
  public static final String ZOOKEEPER_PASSWORD_FILE_KEY = PREFIX + "zookeeper.passwordFile";

  /**
   * Every security setting of zoo.cfg, full keys ({@value #PREFIX} included), with its default and
   * meaning: the descriptors {@link #from(Map)} reads, which the launcher checks zoo.cfg's keys
   * against and the help lists.
   */
  public static final List<Setting<?>> SETTINGS;

  static {
    List<Setting<?>> keys = new ArrayList<>();
    for (Setting<?> k : SecurityKeys.TLS) {
      keys.add(k.withPrefix(PREFIX));
    }
    keys.add(SecurityKeys.SECRETS_FILE.withPrefix(PREFIX));
    keys.add(
        SecurityKeys.allowList(
            PREFIX + SecurityKeys.AUTH_ALLOW_REPEATER,
            "(anyone)",
            "Comma-separated principals "
                + "allowed to connect as the repeater and send SEQUENCED; when set, a repeater must authenticate."));
    keys.add(
        SecurityKeys.allowList(
            PREFIX + SecurityKeys.AUTH_ALLOW_CLIENT,
            "(anyone)",
            "Comma-separated principals "
                + "allowed to connect as clients (reads, replies); when set, a client must authenticate."));
    keys.add(
        Setting.text(ZOOKEEPER_USER_KEY)
            .defaultText("(none)")
            .doc(
                "Digest user of the plugin's own ZooKeeper session; "
                    + "with it, Zoolander's znodes get an ACL letting only this identity write (everyone may read).")
            .build());
    keys.add(
        Setting.text(ZOOKEEPER_PASSWORD_FILE_KEY)
            .defaultText("(none)")
            .doc(
                "File holding that user's password (trailing "
                    + "line breaks ignored); the same on every server of every duplicate that shares the identity.")
            .build());
    SETTINGS = List.copyOf(keys);
  }

  private final LinkSecurity link;
  private final String zooKeeperUser;
  private final byte[] zooKeeperAuth;
  private final List<ACL> acl;

  private PluginSecurity(
      LinkSecurity link, String zooKeeperUser, byte[] zooKeeperAuth, List<ACL> acl) {
    this.link = link;
    this.zooKeeperUser = zooKeeperUser;
    this.zooKeeperAuth = zooKeeperAuth;
    this.acl = acl;
  }

  /** No TLS, no authentication, open ACLs. */
  public static final PluginSecurity NONE =
      new PluginSecurity(LinkSecurity.NONE, null, null, ZooDefs.Ids.OPEN_ACL_UNSAFE);

  /**
   * Reads and validates the security entries; reads every file they name.
   *
   * @throws IllegalArgumentException naming every invalid entry
   */
  public static PluginSecurity from(Map<String, String> properties) {
    List<String> errors = new ArrayList<>();
    TlsSettings tls = SecurityKeys.tls(properties, PREFIX, errors);
    AccessControl access =
        SecurityKeys.access(
            properties,
            PREFIX,
            Map.of(
                SecurityKeys.AUTH_ALLOW_CLIENT,
                Role.CLIENT,
                SecurityKeys.AUTH_ALLOW_REPEATER,
                Role.REPEATER),
            errors);
    String user = SecurityKeys.value(properties, "", ZOOKEEPER_USER_KEY);
    String passwordFile = SecurityKeys.value(properties, "", ZOOKEEPER_PASSWORD_FILE_KEY);
    byte[] auth = null;
    List<ACL> acl = ZooDefs.Ids.OPEN_ACL_UNSAFE;
    if ((user == null) != (passwordFile == null)) {
      errors.add(ZOOKEEPER_USER_KEY + " and " + ZOOKEEPER_PASSWORD_FILE_KEY + " go together");
    } else if (user != null) {
      if (user.contains(":")) {
        errors.add(ZOOKEEPER_USER_KEY + " must not contain ':'");
      } else {
        try {
          // The password file is read like a shared secret, but any non-empty password is accepted.
          auth = digestAuth(user, Path.of(passwordFile));
          acl = aclFor(new String(auth, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
          errors.add(ZOOKEEPER_PASSWORD_FILE_KEY + ": " + e.getMessage());
        }
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(
          "Invalid Zoolander security settings in zoo.cfg: " + String.join("; ", errors));
    }
    if (tls == null && !access.isEnabled() && auth == null) {
      return NONE;
    }
    return new PluginSecurity(new LinkSecurity(tls, access, null), user, auth, acl);
  }

  /**
   * The ACL of Zoolander's znodes for the digest identity {@code user:password}: it may do
   * everything, anyone read.
   */
  public static List<ACL> aclFor(String userColonPassword) {
    try {
      Id id = new Id("digest", DigestAuthenticationProvider.generateDigest(userColonPassword));
      // Not List.of: ZooKeeper checks an ACL with contains(null), which an immutable List.of
      // rejects.
      return java.util.Collections.unmodifiableList(
          Arrays.asList(
              new ACL(ZooDefs.Perms.ALL, id),
              new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA1 is not available", e);
    }
  }

  /**
   * The digest auth data {@code user:password} of a ZooKeeper identity whose password is in {@code
   * passwordFile} (read like {@value #ZOOKEEPER_PASSWORD_FILE_KEY}: trailing newlines dropped, not
   * empty). The repeater, which claims epochs in the state znode, is given the plugins' identity
   * with it. Internal use.
   *
   * @throws IllegalArgumentException if the user contains ':' or the file cannot be read or is
   *     empty
   */
  public static byte[] digestAuth(String user, Path passwordFile) {
    if (user.isEmpty() || user.contains(":")) {
      throw new IllegalArgumentException(
          "a ZooKeeper user must be non-empty and must not contain ':', was '" + user + "'");
    }
    byte[] password = readPassword(passwordFile);
    String idPassword = user + ":" + new String(password, StandardCharsets.UTF_8);
    Arrays.fill(password, (byte) 0);
    return idPassword.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] readPassword(Path file) {
    byte[] bytes;
    try {
      bytes = java.nio.file.Files.readAllBytes(file);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalArgumentException(file + " does not exist");
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage());
    }
    int end = bytes.length;
    while (end > 0 && (bytes[end - 1] == '\n' || bytes[end - 1] == '\r')) {
      end--;
    }
    if (end == 0) {
      throw new IllegalArgumentException(file + " is empty");
    }
    return Arrays.copyOf(bytes, end);
  }

  /** TLS and access control of the plugin's listener. Internal use. */
  public LinkSecurity link() {
    return link;
  }

  /** TLS on the listener, if on. */
  public TlsSettings tls() {
    return link.tls();
  }

  /** Who may connect in which role. */
  public AccessControl access() {
    return link.access();
  }

  /**
   * Whether the plugin's ZooKeeper session authenticates and protects Zoolander's znodes with ACLs.
   */
  public boolean protectsZnodes() {
    return zooKeeperAuth != null;
  }

  /** The digest user, null if none. */
  public String zooKeeperUser() {
    return zooKeeperUser;
  }

  /**
   * The digest auth data {@code user:password} for {@code ZooKeeper.addAuthInfo}, null if none.
   * Internal use.
   */
  public byte[] zooKeeperAuth() {
    return zooKeeperAuth == null ? null : zooKeeperAuth.clone();
  }

  /** The ACL of every znode the plugin creates: open without a ZooKeeper identity. */
  public List<ACL> acl() {
    return acl;
  }

  @Override
  public String toString() {
    return "PluginSecurity[tls="
        + link.tls()
        + ", access="
        + link.access()
        + ", zooKeeperUser="
        + zooKeeperUser
        + "]";
  }
}
