#!/usr/bin/env bash
# Local backing services for Vigil: Redis, ClickHouse, Kafka (KRaft), PostgreSQL, s3proxy and
# dnsmasq, all on 127.0.0.1, with every data/log/pid file under <repo>/.services/,
# plus Debian's Chromium and its headless shell (installed, not servers) for browser checks.
#
# Usage: scripts/services.sh <command> [service...]
#   up|start   [service ...]                 install what is missing, start, wait until answering
#   down|stop  [service ...]                 stop gracefully (TERM, then KILL); data is kept
#   restart    [service...]                  down + up
#   status     [service...]                  one line per service (always exits 0)
#   env                                      shell-sourceable connection settings (stdout only)
#   logs       <service> [lines]             tail of the service's log files
#   kafka-run-class <class> [args...]        run a class from the Kafka jars (tools, console clients)
#
# Services: redis clickhouse kafka postgres dnsmasq s3 chromium bubblewrap, one file each under
# scripts/services/ (its README says how to add one). Without a service list, commands act
# on all of them.
#
# Environment:
#   VIGIL_REDIS_PORT (6379)  VIGIL_CLICKHOUSE_HTTP_PORT (8123)  VIGIL_CLICKHOUSE_TCP_PORT (9000)
#   VIGIL_KAFKA_PORT (9092)  VIGIL_KAFKA_CONTROLLER_PORT (9093)
#   VIGIL_POSTGRES_PORT (54329)  VIGIL_DNS_PORT (53535, UDP and TCP)  VIGIL_S3_PORT (9327)
#   VIGIL_SERVICES_TIMEOUT   seconds to wait for a service to answer (120)
#   VIGIL_KAFKA_VERSION      Kafka version fetched from Maven (3.9.2)
#   VIGIL_KAFKA_HEAP_OPTS    JVM heap flags for the broker ("-Xms256m -Xmx1g")
#
# All progress messages go to stderr; only `env`, `status`, `logs` and
# `kafka-run-class` write to stdout.
#
# Notes:
# - One instance of each service per checkout. `up` with different VIGIL_*_PORT
#   values than a running instance restarts that instance on the new ports.
# - `up` is a no-op (well under a second) when every requested service already
#   answers; a stale pid file makes it restart that service. Concurrent runs are
#   serialised with flock on .services/.lock.
# - Readiness probes: Redis `PING`, ClickHouse `SELECT 1` over HTTP, Kafka a
#   metadata request with kcat (falls back to org.apache.kafka.tools.TopicCommand),
#   PostgreSQL `SELECT 1` with psql (then the database `vigil` is created if missing),
#   dnsmasq a `dig` query over UDP and over TCP, Chromium `chromium --version` and its headless shell,
#   bubblewrap (the script sandbox, libs/sandbox) `bwrap --version`.
# - PostgreSQL (Debian's postgresql, newest /usr/lib/postgresql/*/bin) trusts
#   connections from 127.0.0.1; run as root, the server runs as the `postgres` user.
# - dnsmasq serves the test zone vigil.test (see scripts/services/dnsmasq.sh).
# - Kafka console tools in 3.9: kafka.tools.ConsoleProducer,
#   org.apache.kafka.tools.consumer.ConsoleConsumer, org.apache.kafka.tools.TopicCommand,
#   org.apache.kafka.tools.consumer.group.ConsumerGroupCommand, e.g.
#   scripts/services.sh kafka-run-class org.apache.kafka.tools.TopicCommand \
#     --bootstrap-server 127.0.0.1:9092 --list
set -euo pipefail

export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

REPO_ROOT="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)"
PARTS="$REPO_ROOT/scripts/services"

# shellcheck source=services/core.sh
source "$PARTS/core.sh"
# shellcheck source=services/lifecycle.sh
source "$PARTS/lifecycle.sh"
# One file per service; this order is the start order (and, reversed, the stop order).
for part in redis clickhouse kafka postgres dnsmasq s3 chromium bubblewrap; do
  # shellcheck source=/dev/null
  source "$PARTS/$part.sh"
done
unset part

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
}

main() {
  local cmd="${1:-}"
  [ "$#" -gt 0 ] && shift
  case "$cmd" in
    up | start) cmd_up "$@" ;;
    down | stop) cmd_down "$@" ;;
    restart)
      cmd_down "$@"
      cmd_up "$@"
      ;;
    status) cmd_status "$@" ;;
    env) cmd_env ;;
    logs) cmd_logs "$@" ;;
    kafka-run-class) cmd_kafka_run_class "$@" ;;
    -h | --help | help)
      usage
      ;;
    *)
      usage
      [ -n "$cmd" ] && die "unknown command '$cmd'"
      exit 2
      ;;
  esac
}

main "$@"
