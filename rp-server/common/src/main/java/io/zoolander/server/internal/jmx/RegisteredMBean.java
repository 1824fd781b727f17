package io.zoolander.server.internal.jmx;

import java.util.Map;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanRegistrationException;
import javax.management.MBeanServer;
import javax.management.NotCompliantMBeanException;
import javax.management.ObjectName;
import javax.management.StandardMBean;

/**
 * An MXBean registered under one name until {@link #close()}, with the parameter names of its
 * operations (MXBean introspection knows only {@code p0, p1, ...}, which is what JConsole would
 * show). Internal.
 */
public final class RegisteredMBean implements AutoCloseable {
  private final MBeanServer server;
  private final ObjectName name;
  private boolean registered;

  private RegisteredMBean(MBeanServer server, ObjectName name) {
    this.server = server;
    this.name = name;
  }

  /**
   * Registers {@code implementation} as an MXBean of {@code type} under {@code name}.
   *
   * @param parameterNames operation name to its parameters' names
   * @throws InstanceAlreadyExistsException if something is registered under {@code name} already
   */
  public static <T> RegisteredMBean register(
      MBeanServer server,
      ObjectName name,
      T implementation,
      Class<T> type,
      Map<String, String[]> parameterNames)
      throws InstanceAlreadyExistsException {
    StandardMBean mbean =
        new StandardMBean(implementation, type, true) {
          @Override
          protected String getParameterName(
              MBeanOperationInfo op, MBeanParameterInfo param, int sequence) {
            String[] names = parameterNames.get(op.getName());
            return names != null && sequence < names.length ? names[sequence] : param.getName();
          }
        };
    RegisteredMBean handle = new RegisteredMBean(server, name);
    try {
      server.registerMBean(mbean, name);
    } catch (MBeanRegistrationException | NotCompliantMBeanException e) {
      throw new IllegalStateException("cannot register " + name + ": " + e, e);
    }
    handle.registered = true;
    return handle;
  }

  public ObjectName name() {
    return name;
  }

  /** Unregisters the MBean. Idempotent. */
  @Override
  public synchronized void close() {
    if (registered) {
      registered = false;
      try {
        server.unregisterMBean(name);
      } catch (InstanceNotFoundException | MBeanRegistrationException e) {
        // gone already
      }
    }
  }
}
