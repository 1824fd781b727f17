#!/usr/bin/env bash
# Healthy when the repeater's client listener accepts a connection (bash's /dev/tcp: the image has no netcat).
set -euo pipefail
cfg="$ZOOLANDER_CONF_DIR/repeater.properties"
port="$(sed -n 's/^clientPort=\([0-9]*\).*/\1/p' "$cfg" | tail -n 1)"
host="$(sed -n 's/^clientHost=\(.*\)/\1/p' "$cfg" | tail -n 1)"
case "$host" in "" | 0.0.0.0 | "::") host=127.0.0.1 ;; esac
exec 3<>"/dev/tcp/$host/$port"
