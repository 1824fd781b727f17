#!/usr/bin/env bash
# Entry point of the zoolander repeater image: writes the repeater's properties file from the environment (unless one
# is mounted at $ZOOLANDER_CONF_DIR/repeater.properties) and runs `zoolander repeater`. Arguments are passed on to
# `zoolander repeater`. The variables and their defaults: docs/docker.md.
set -euo pipefail

cfg="$ZOOLANDER_CONF_DIR/repeater.properties"

if [ ! -f "$cfg" ]; then
  if [ -z "${ZOOLANDER_DUPLICATES:-}" ]; then
    echo "zoolander repeater: set ZOOLANDER_DUPLICATES, e.g. \"1=zk-a1:2181,zk-a2:2181 2=zk-b1:2181\"" >&2
    exit 2
  fi
  password_file="${ZOOLANDER_ZOOKEEPER_PASSWORD_FILE:-/run/secrets/zookeeper-password}"
  if [ -n "${ZOOLANDER_ZOOKEEPER_USER:-}" ] && [ ! -r "$password_file" ]; then
    echo "zoolander repeater: ZOOLANDER_ZOOKEEPER_USER is set but $password_file (ZOOLANDER_ZOOKEEPER_PASSWORD_FILE) is not a readable file" >&2
    exit 2
  fi
  {
    echo "clientHost=$ZOOLANDER_CLIENT_HOST"
    echo "clientPort=$ZOOLANDER_CLIENT_PORT"
    if [ -n "${ZOOLANDER_BASE_PATH:-}" ]; then echo "basePath=$ZOOLANDER_BASE_PATH"; fi
    # "<id>=<connect string>" per duplicate, separated by spaces.
    for duplicate in $ZOOLANDER_DUPLICATES; do echo "duplicate.$duplicate"; done
    # The plugins' ZooKeeper identity, which claiming an epoch in every duplicate's state znode needs when the plugins
    # have their ACLs on.
    if [ -n "${ZOOLANDER_ZOOKEEPER_USER:-}" ]; then
      echo "zookeeper.user=$ZOOLANDER_ZOOKEEPER_USER"
      echo "zookeeper.passwordFile=$password_file"
    fi
    # Any other settings of the properties file: "key=value key=value".
    for entry in ${ZOOLANDER_CFG_EXTRA:-}; do echo "$entry"; done
  } >"$cfg"
fi

args=(repeater --config "$cfg")
if [ -n "${ZOOLANDER_JMX_PORT:-}" ]; then args+=(--jmx-port "$ZOOLANDER_JMX_PORT"); fi
# shellcheck disable=SC2086
exec java ${ZOOLANDER_JAVA_OPTS:-} -jar /opt/zoolander/zoolander.jar "${args[@]}" "$@"
