#!/usr/bin/env bash
# Entry point of the zoolander server image: writes zoo.cfg from the environment (unless one is mounted at
# $ZOO_CONF_DIR/zoo.cfg), writes myid, and runs `zoolander server`. Arguments are passed on to `zoolander server`.
# The variables and their defaults: docs/docker.md.
set -euo pipefail

cfg="$ZOO_CONF_DIR/zoo.cfg"

if [ ! -f "$cfg" ]; then
  if [ -z "${ZOOLANDER_DUPLICATE_ID:-}" ]; then
    echo "zoolander server: set ZOOLANDER_DUPLICATE_ID (this duplicate's id, an integer >= 0)" >&2
    exit 2
  fi
  my_id="${ZOO_MY_ID:-1}"
  password_file="${ZOOLANDER_ZOOKEEPER_PASSWORD_FILE:-/run/secrets/zookeeper-password}"
  if [ -n "${ZOOLANDER_ZOOKEEPER_USER:-}" ] && [ ! -r "$password_file" ]; then
    echo "zoolander server: ZOOLANDER_ZOOKEEPER_USER is set but $password_file (ZOOLANDER_ZOOKEEPER_PASSWORD_FILE) is not a readable file" >&2
    exit 2
  fi
  {
    echo "dataDir=$ZOO_DATA_DIR"
    echo "dataLogDir=$ZOO_DATA_LOG_DIR"
    echo "tickTime=$ZOO_TICK_TIME"
    echo "initLimit=$ZOO_INIT_LIMIT"
    echo "syncLimit=$ZOO_SYNC_LIMIT"
    echo "clientPort=$ZOO_CLIENT_PORT"
    if [ -n "${ZOO_CLIENT_PORT_ADDRESS:-}" ]; then echo "clientPortAddress=$ZOO_CLIENT_PORT_ADDRESS"; fi
    echo "maxClientCnxns=$ZOO_MAX_CLIENT_CNXNS"
    echo "autopurge.snapRetainCount=$ZOO_AUTOPURGE_SNAPRETAINCOUNT"
    echo "autopurge.purgeInterval=$ZOO_AUTOPURGE_PURGEINTERVAL"
    echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
    echo "admin.enableServer=$ZOO_ADMINSERVER_ENABLED"
    # The plugin runs on the ensemble's leader, so even a one-server duplicate is a quorum of one.
    echo "standaloneEnabled=false"
    echo "reconfigEnabled=false"
    # ZOO_SERVERS as in the official image: "server.1=zk-a1:2888:3888;2181 server.2=..." (this duplicate's servers).
    for server in ${ZOO_SERVERS:-server.$my_id=localhost:2888:3888}; do echo "$server"; done
    echo "zoolander.pluginFactory=io.zoolander.server.plugin.ZoolanderPluginFactory"
    echo "zoolander.duplicateId=$ZOOLANDER_DUPLICATE_ID"
    if [ -n "${ZOOLANDER_BASE_PATH:-}" ]; then echo "zoolander.basePath=$ZOOLANDER_BASE_PATH"; fi
    echo "zoolander.plugin.host=$ZOOLANDER_PLUGIN_HOST"
    echo "zoolander.plugin.port=$ZOOLANDER_PLUGIN_PORT"
    advertised="${ZOOLANDER_PLUGIN_ADVERTISED_HOST:-}"
    # A wildcard bind address cannot be published: publish this container's host name, which other containers of
    # its network resolve.
    if [ -z "$advertised" ] && { [ "$ZOOLANDER_PLUGIN_HOST" = 0.0.0.0 ] || [ "$ZOOLANDER_PLUGIN_HOST" = "::" ]; }; then
      advertised="$HOSTNAME"
    fi
    if [ -n "$advertised" ]; then echo "zoolander.plugin.advertisedHost=$advertised"; fi
    # The plugin's ZooKeeper identity: with it, only the plugins may write Zoolander's znodes (docs/operations.md,
    # "ZooKeeper ACLs"), so a plain ZooKeeper client cannot make the duplicates differ.
    if [ -n "${ZOOLANDER_ZOOKEEPER_USER:-}" ]; then
      echo "zoolander.zookeeper.user=$ZOOLANDER_ZOOKEEPER_USER"
      echo "zoolander.zookeeper.passwordFile=$password_file"
    fi
    # Any other zoo.cfg entries, ZooKeeper's or zoolander.*: "key=value key=value".
    for entry in ${ZOO_CFG_EXTRA:-}; do echo "$entry"; done
  } >"$cfg"
  if [ ! -f "$ZOO_DATA_DIR/myid" ]; then echo "$my_id" >"$ZOO_DATA_DIR/myid"; fi
fi

args=(server --config "$cfg")
if [ -n "${ZOOLANDER_JMX_PORT:-}" ]; then args+=(--jmx-port "$ZOOLANDER_JMX_PORT"); fi
# ZOOLANDER_JAVA_OPTS: JVM options (heap, -Djute.maxbuffer=...), as for the ./zoolander launcher. exec: the JVM is
# PID 1 and gets docker stop's SIGTERM.
# shellcheck disable=SC2086
exec java ${ZOOLANDER_JAVA_OPTS:-} -jar /opt/zoolander/zoolander.jar "${args[@]}" "$@"
