#!/usr/bin/env bash
# Healthy when the server answers ZooKeeper's srvr command with a Mode (leader or follower): it is part of a quorum.
# Bash's /dev/tcp, as the image has no netcat.
set -euo pipefail
cfg="$ZOO_CONF_DIR/zoo.cfg"
port="$(sed -n 's/^clientPort=\([0-9]*\).*/\1/p' "$cfg" | tail -n 1)"
host="$(sed -n 's/^clientPortAddress=\(.*\)/\1/p' "$cfg" | tail -n 1)"
case "$host" in "" | 0.0.0.0 | "::") host=127.0.0.1 ;; esac
exec 3<>"/dev/tcp/$host/$port"
printf 'srvr' >&3
grep -Eq '^Mode: (leader|follower)' <&3
