#!/usr/bin/env bash
# Local backing services for Vigil: Redis, ClickHouse, Kafka (KRaft), PostgreSQL and
# dnsmasq, all on 127.0.0.1, with every data/log/pid file under <repo>/.services/,
# plus Debian's Chromium (installed, not a server) for browser checks.
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
# Services: redis clickhouse kafka postgres dnsmasq chromium bubblewrap. Without a service
# list, commands act on all of them.
#
# Environment:
#   VIGIL_REDIS_PORT (6379)  VIGIL_CLICKHOUSE_HTTP_PORT (8123)  VIGIL_CLICKHOUSE_TCP_PORT (9000)
#   VIGIL_KAFKA_PORT (9092)  VIGIL_KAFKA_CONTROLLER_PORT (9093)
#   VIGIL_POSTGRES_PORT (54329)  VIGIL_DNS_PORT (53535, UDP and TCP)
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
#   dnsmasq a `dig` query over UDP and over TCP, Chromium `chromium --version`,
#   bubblewrap (the script sandbox, libs/sandbox) `bwrap --version`.
# - PostgreSQL (Debian's postgresql, newest /usr/lib/postgresql/*/bin) trusts
#   connections from 127.0.0.1; run as root, the server runs as the `postgres` user.
# - dnsmasq serves the test zone vigil.test from test/fixtures/dnsmasq/records.conf
#   and A/AAAA records from hosts files in .services/dnsmasq/hosts (DNS_HOSTS_DIR in
#   `env`), re-read when they change. It has no upstream: other names answer REFUSED.
# - Kafka console tools in 3.9: kafka.tools.ConsoleProducer,
#   org.apache.kafka.tools.consumer.ConsoleConsumer, org.apache.kafka.tools.TopicCommand,
#   org.apache.kafka.tools.consumer.group.ConsumerGroupCommand, e.g.
#   scripts/services.sh kafka-run-class org.apache.kafka.tools.TopicCommand \
#     --bootstrap-server 127.0.0.1:9092 --list
set -euo pipefail

export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd -- "$SCRIPT_DIR/.." && pwd -P)"
SERVICES_DIR="$REPO_ROOT/.services"
LOCK_FILE="$SERVICES_DIR/.lock"

HOST=127.0.0.1
REDIS_PORT="${VIGIL_REDIS_PORT:-6379}"
CLICKHOUSE_HTTP_PORT="${VIGIL_CLICKHOUSE_HTTP_PORT:-8123}"
CLICKHOUSE_TCP_PORT="${VIGIL_CLICKHOUSE_TCP_PORT:-9000}"
KAFKA_PORT="${VIGIL_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT="${VIGIL_KAFKA_CONTROLLER_PORT:-9093}"
POSTGRES_PORT="${VIGIL_POSTGRES_PORT:-54329}"
DNS_PORT="${VIGIL_DNS_PORT:-53535}"
START_TIMEOUT="${VIGIL_SERVICES_TIMEOUT:-120}"

KAFKA_VERSION="${VIGIL_KAFKA_VERSION:-3.9.2}"
KAFKA_SCALA_VERSION=2.13
# Kafka 3.9 is built against slf4j 1.7.36 and logs through reload4j.
SLF4J_VERSION=1.7.36
MAVEN_DEPENDENCY_PLUGIN_VERSION=3.6.1
KAFKA_HEAP_OPTS="${VIGIL_KAFKA_HEAP_OPTS:--Xms256m -Xmx1g}"

ALL_SERVICES=(redis clickhouse kafka postgres dnsmasq chromium bubblewrap)

REDIS_DIR="$SERVICES_DIR/redis"
CH_DIR="$SERVICES_DIR/clickhouse"
KAFKA_DIR="$SERVICES_DIR/kafka"
# Not .services/postgres: bench/support/postgres.sh keeps its own throwaway cluster there.
PG_DIR="$SERVICES_DIR/postgresql"
DNS_DIR="$SERVICES_DIR/dnsmasq"
DNS_RECORDS="$REPO_ROOT/test/fixtures/dnsmasq/records.conf"

# ---------------------------------------------------------------- helpers --

log() { printf '[services] %s\n' "$*" >&2; }
die() {
  printf '[services] ERROR: %s\n' "$*" >&2
  exit 1
}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
}

for _p in "$REDIS_PORT" "$CLICKHOUSE_HTTP_PORT" "$CLICKHOUSE_TCP_PORT" "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT" \
  "$POSTGRES_PORT" "$DNS_PORT" "$START_TIMEOUT"; do
  [[ "$_p" =~ ^[0-9]+$ ]] || die "not a number: '$_p' (check the VIGIL_* environment variables)"
done
unset _p

valid_service() {
  case "$1" in redis | clickhouse | kafka | postgres | dnsmasq | chromium | bubblewrap) return 0 ;; *) return 1 ;; esac
}

# Chromium and bubblewrap are programs the runner launches, not servers: installed and checked, never started.
is_daemon() { [ "$1" != chromium ] && [ "$1" != bubblewrap ]; }

pidfile_of() {
  case "$1" in
    redis) echo "$REDIS_DIR/redis.pid" ;;
    clickhouse) echo "$CH_DIR/clickhouse.pid" ;;
    kafka) echo "$KAFKA_DIR/kafka.pid" ;;
    postgres) echo "$PG_DIR/postgres.pid" ;;
    dnsmasq) echo "$DNS_DIR/dnsmasq.pid" ;;
  esac
}

# Name of the environment variable that sets a given port of svc.
port_var_of() {
  case "$1:$2" in
    redis:*) echo VIGIL_REDIS_PORT ;;
    clickhouse:"$CLICKHOUSE_HTTP_PORT") echo VIGIL_CLICKHOUSE_HTTP_PORT ;;
    clickhouse:*) echo VIGIL_CLICKHOUSE_TCP_PORT ;;
    kafka:"$KAFKA_PORT") echo VIGIL_KAFKA_PORT ;;
    kafka:*) echo VIGIL_KAFKA_CONTROLLER_PORT ;;
    postgres:*) echo VIGIL_POSTGRES_PORT ;;
    dnsmasq:*) echo VIGIL_DNS_PORT ;;
  esac
}

# File recording the port a running instance was started with.
# Directory holding a service's files.
dir_of() {
  case "$1" in
    postgres) echo "$PG_DIR" ;;
    *) echo "$SERVICES_DIR/$1" ;;
  esac
}

portfile_of() { echo "$(dir_of "$1")/.port"; }

ports_of() {
  case "$1" in
    redis) echo "$REDIS_PORT" ;;
    clickhouse) echo "$CLICKHOUSE_HTTP_PORT $CLICKHOUSE_TCP_PORT" ;;
    kafka) echo "$KAFKA_PORT $KAFKA_CONTROLLER_PORT" ;;
    postgres) echo "$POSTGRES_PORT" ;;
    dnsmasq) echo "$DNS_PORT" ;;
  esac
}

# True if the process exists and is not a zombie (orphans may never be reaped here).
pid_alive() {
  local pid="$1" state
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  [ -r "/proc/$pid/stat" ] || return 1
  state="$(sed -e 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

cmdline_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true; }

# Is pid one of *our* instances of the service (not some other redis/java)?
pid_is_ours() {
  local svc="$1" pid="$2" cmd cwd
  pid_alive "$pid" || return 1
  cmd="$(cmdline_of "$pid")"
  case "$svc" in
    redis)
      # redis-server rewrites its title, so match on the working directory (`dir`).
      [[ "$cmd" == *redis-server* ]] || return 1
      cwd="$(readlink "/proc/$pid/cwd" 2>/dev/null || true)"
      [ "$cwd" = "$REDIS_DIR/data" ]
      ;;
    clickhouse) [[ "$cmd" == *clickhouse* && "$cmd" == *"$CH_DIR/config.xml"* ]] ;;
    kafka) [[ "$cmd" == *kafka.Kafka* && "$cmd" == *"$KAFKA_DIR/config/server.properties"* ]] ;;
    # The postmaster keeps its command line; its children rename themselves ("postgres: checkpointer").
    postgres) [[ "$cmd" == *bin/postgres\ * && "$cmd" == *"-D $PG_DIR/data "* ]] ;;
    dnsmasq) [[ "$cmd" == *dnsmasq* && "$cmd" == *"$DNS_DIR/dnsmasq.conf"* ]] ;;
    *) return 1 ;;
  esac
}

# Print the pid of our running instance of svc (from its pid file, or adopted by
# scanning /proc if the pid file was lost). Returns 1 if not running.
find_pid() {
  local svc="$1" pidfile pid p
  pidfile="$(pidfile_of "$svc")"
  if [ -f "$pidfile" ]; then
    pid="$(tr -dc '0-9' <"$pidfile" 2>/dev/null || true)"
    if [ -n "$pid" ] && pid_is_ours "$svc" "$pid"; then
      echo "$pid"
      return 0
    fi
  fi
  for p in /proc/[0-9]*; do
    pid="${p#/proc/}"
    [ "$pid" = "$$" ] && continue
    if pid_is_ours "$svc" "$pid"; then
      if [ -d "$(dirname "$pidfile")" ]; then echo "$pid" >"$pidfile"; fi
      echo "$pid"
      return 0
    fi
  done
  return 1
}

port_in_use() {
  timeout 2 bash -c "exec 3<>/dev/tcp/$HOST/$1" >/dev/null 2>&1
}

describe_port_owner() {
  local port="$1"
  if command -v ss >/dev/null 2>&1; then
    ss -Hltnp "sport = :$port" 2>/dev/null | sed 's/^/    /' >&2 || true
  fi
}

redis_cli() { command -v redis-cli; }
clickhouse_server_bin() {
  command -v clickhouse-server 2>/dev/null && return 0
  [ -x /usr/sbin/clickhouse-server ] && echo /usr/sbin/clickhouse-server && return 0
  command -v clickhouse 2>/dev/null && return 0
  return 1
}
postgres_bin_dir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  [ -n "$d" ] && [ -x "$d/postgres" ] && echo "$d"
}
chromium_bin() {
  command -v chromium 2>/dev/null && return 0
  [ -x /usr/bin/chromium ] && echo /usr/bin/chromium
}
bwrap_bin() { [ -x /usr/bin/bwrap ] && echo /usr/bin/bwrap; }
# The program a non-daemon service stands for.
program_of() { if [ "$1" = bubblewrap ]; then bwrap_bin; else chromium_bin; fi; }
java_bin() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    echo "$JAVA_HOME/bin/java"
  else
    command -v java
  fi
}

# Liveness probes: the service really answers a request.
probe() {
  local svc="$1" out
  case "$svc" in
    postgres)
      local bin
      bin="$(postgres_bin_dir)" || return 1
      out="$(PGCONNECT_TIMEOUT=5 timeout 10 "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres \
        -XtAc 'SELECT 1' 2>/dev/null)" || return 1
      [ "$out" = 1 ]
      ;;
    dnsmasq)
      # A record from the fixture zone, once over UDP and once over TCP.
      command -v dig >/dev/null 2>&1 || return 1
      out="$(dig @"$HOST" -p "$DNS_PORT" +time=2 +tries=1 +short ns1.vigil.test A 2>/dev/null)" || return 1
      [ "$out" = 127.0.0.1 ] || return 1
      out="$(dig @"$HOST" -p "$DNS_PORT" +tcp +time=2 +tries=1 +short ns1.vigil.test A 2>/dev/null)" || return 1
      [ "$out" = 127.0.0.1 ]
      ;;
    chromium)
      local bin
      bin="$(chromium_bin)" || return 1
      out="$(timeout 30 "$bin" --version 2>/dev/null)" || return 1
      [[ "$out" == *Chromium* ]]
      ;;
    bubblewrap)
      out="$(timeout 10 /usr/bin/bwrap --version 2>/dev/null)" || return 1
      [[ "$out" == bubblewrap* ]]
      ;;
    redis)
      command -v redis-cli >/dev/null 2>&1 || return 1
      out="$(timeout 5 redis-cli -h "$HOST" -p "$REDIS_PORT" PING 2>/dev/null)" || return 1
      [ "$out" = PONG ]
      ;;
    clickhouse)
      out="$(curl -fsS --max-time 5 "http://$HOST:$CLICKHOUSE_HTTP_PORT/?query=SELECT%201" 2>/dev/null)" || return 1
      [ "$out" = 1 ]
      ;;
    kafka)
      port_in_use "$KAFKA_PORT" || return 1
      if command -v kcat >/dev/null 2>&1; then
        # Metadata request; the broker must list itself (registered and unfenced).
        out="$(timeout 15 kcat -L -b "$HOST:$KAFKA_PORT" -m 10 2>/dev/null)" || return 1
        grep -q "broker 1 at" <<<"$out"
      else
        kafka_java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$HOST:$KAFKA_PORT" --list >/dev/null 2>&1
      fi
      ;;
  esac
}

log_files_of() {
  case "$1" in
    redis) echo "$REDIS_DIR/redis.log $REDIS_DIR/stdout.log" ;;
    clickhouse) echo "$CH_DIR/log/clickhouse-server.err.log $CH_DIR/log/clickhouse-server.log $CH_DIR/log/stdout.log" ;;
    kafka) echo "$KAFKA_DIR/logs/server.log $KAFKA_DIR/logs/kafka.out" ;;
    postgres) echo "$PG_DIR/server.log $PG_DIR/initdb.log" ;;
    dnsmasq) echo "$DNS_DIR/dnsmasq.log" ;;
    chromium | bubblewrap) ;;
  esac
}

show_log_tail() {
  local svc="$1" lines="${2:-40}" f
  for f in $(log_files_of "$svc"); do
    if [ -s "$f" ]; then
      printf '[services] ---- last %s lines of %s ----\n' "$lines" "$f" >&2
      tail -n "$lines" "$f" >&2 || true
    fi
  done
}

# -------------------------------------------------------------- installing --

POLICY_RC_D_CREATED=0
cleanup() {
  if [ "$POLICY_RC_D_CREATED" = 1 ]; then
    rm -f /usr/sbin/policy-rc.d
  fi
}
trap cleanup EXIT

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to install packages: $*"
  fi
}

ensure_packages() {
  local svc pkgs=()
  for svc in "$@"; do
    case "$svc" in
      redis)
        command -v redis-server >/dev/null 2>&1 || pkgs+=(redis-server)
        command -v redis-cli >/dev/null 2>&1 || pkgs+=(redis-tools)
        ;;
      clickhouse)
        clickhouse_server_bin >/dev/null 2>&1 || pkgs+=(clickhouse-server)
        command -v clickhouse-client >/dev/null 2>&1 || pkgs+=(clickhouse-client)
        command -v curl >/dev/null 2>&1 || pkgs+=(curl)
        ;;
      kafka)
        java_bin >/dev/null 2>&1 || pkgs+=(default-jre-headless)
        command -v mvn >/dev/null 2>&1 || pkgs+=(maven)
        command -v kcat >/dev/null 2>&1 || pkgs+=(kcat)
        ;;
      postgres)
        postgres_bin_dir >/dev/null 2>&1 || pkgs+=(postgresql)
        command -v setpriv >/dev/null 2>&1 || pkgs+=(util-linux)
        ;;
      dnsmasq)
        [ -x /usr/sbin/dnsmasq ] || command -v dnsmasq >/dev/null 2>&1 || pkgs+=(dnsmasq-base)
        command -v dig >/dev/null 2>&1 || pkgs+=(bind9-dnsutils)
        ;;
      chromium)
        chromium_bin >/dev/null 2>&1 || pkgs+=(chromium)
        ;;
      bubblewrap)
        bwrap_bin >/dev/null 2>&1 || pkgs+=(bubblewrap)
        ;;
    esac
  done
  [ "${#pkgs[@]}" -eq 0 ] && return 0
  # The rest of the script needs these, whatever subset is requested.
  command -v curl >/dev/null 2>&1 || pkgs+=(curl)
  command -v flock >/dev/null 2>&1 || pkgs+=(util-linux)
  [ -e /etc/ssl/certs/ca-certificates.crt ] || pkgs+=(ca-certificates)
  log "installing Debian packages: ${pkgs[*]}"

  # Keep package maintainer scripts from starting system-wide redis/clickhouse
  # instances (they would grab our ports): deny every service start while installing.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d'
    POLICY_RC_D_CREATED=1
  fi
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -q)
  as_root "${apt[@]}" update >&2 || die "apt-get update failed"
  as_root "${apt[@]}" install -y --no-install-recommends "${pkgs[@]}" >&2 ||
    die "apt-get install failed for: ${pkgs[*]}"
  if [ "$POLICY_RC_D_CREATED" = 1 ]; then
    as_root rm -f /usr/sbin/policy-rc.d
    POLICY_RC_D_CREATED=0
  fi
  # Belt and braces: if an init system did start the packaged daemons anyway,
  # stop them so they don't hold our ports.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    for svc in "${pkgs[@]}"; do
      case "$svc" in
        redis-server | clickhouse-server | postgresql)
          as_root systemctl disable --now "$svc" >/dev/null 2>&1 || true
          ;;
      esac
    done
  fi
}

# ------------------------------------------------------------------ redis --

redis_prepare() {
  mkdir -p "$REDIS_DIR/data"
  cat >"$REDIS_DIR/redis.conf" <<EOF
# Generated by scripts/services.sh; rewritten on every start.
bind $HOST
protected-mode yes
port $REDIS_PORT
daemonize yes
supervised no
pidfile $REDIS_DIR/redis.pid
logfile $REDIS_DIR/redis.log
loglevel notice
dir $REDIS_DIR/data
appendonly yes
appendfilename "appendonly.aof"
appendfsync everysec
save 3600 1 300 100 60 10000
EOF
}

redis_start() {
  redis_prepare
  rm -f "$REDIS_DIR/redis.pid"
  # daemonize yes: the parent returns once the child has forked. fd 9 is the
  # lock; the daemon must not inherit it.
  redis-server "$REDIS_DIR/redis.conf" </dev/null >>"$REDIS_DIR/stdout.log" 2>&1 9>&- ||
    {
      show_log_tail redis
      die "redis-server failed to start"
    }
}

# ------------------------------------------------------------- clickhouse --

clickhouse_prepare() {
  mkdir -p "$CH_DIR/data/tmp" "$CH_DIR/data/user_files" "$CH_DIR/data/format_schemas" "$CH_DIR/log"
  cat >"$CH_DIR/config.xml" <<EOF
<?xml version="1.0"?>
<!-- Generated by scripts/services.sh; rewritten on every start. -->
<yandex>
    <logger>
        <level>information</level>
        <log>$CH_DIR/log/clickhouse-server.log</log>
        <errorlog>$CH_DIR/log/clickhouse-server.err.log</errorlog>
        <size>50M</size>
        <count>3</count>
    </logger>
    <listen_host>$HOST</listen_host>
    <http_port>$CLICKHOUSE_HTTP_PORT</http_port>
    <tcp_port>$CLICKHOUSE_TCP_PORT</tcp_port>
    <max_connections>4096</max_connections>
    <keep_alive_timeout>3</keep_alive_timeout>
    <max_concurrent_queries>100</max_concurrent_queries>
    <uncompressed_cache_size>268435456</uncompressed_cache_size>
    <mark_cache_size>268435456</mark_cache_size>
    <path>$CH_DIR/data/</path>
    <tmp_path>$CH_DIR/data/tmp/</tmp_path>
    <user_files_path>$CH_DIR/data/user_files/</user_files_path>
    <format_schema_path>$CH_DIR/data/format_schemas/</format_schema_path>
    <users_config>$CH_DIR/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <timezone>UTC</timezone>
    <mlock_executable>false</mlock_executable>
    <builtin_dictionaries_reload_interval>3600</builtin_dictionaries_reload_interval>
    <max_session_timeout>3600</max_session_timeout>
    <default_session_timeout>60</default_session_timeout>
    <query_log>
        <database>system</database>
        <table>query_log</table>
        <partition_by>toYYYYMM(event_date)</partition_by>
        <flush_interval_milliseconds>7500</flush_interval_milliseconds>
    </query_log>
    <dictionaries_config>$CH_DIR/*_dictionary.xml</dictionaries_config>
</yandex>
EOF
  cat >"$CH_DIR/users.xml" <<'EOF'
<?xml version="1.0"?>
<!-- Generated by scripts/services.sh; rewritten on every start. -->
<yandex>
    <profiles>
        <default>
            <max_memory_usage>4000000000</max_memory_usage>
            <use_uncompressed_cache>0</use_uncompressed_cache>
            <load_balancing>random</load_balancing>
        </default>
        <readonly>
            <readonly>1</readonly>
        </readonly>
    </profiles>
    <users>
        <default>
            <password></password>
            <networks>
                <ip>::/0</ip>
            </networks>
            <profile>default</profile>
            <quota>default</quota>
        </default>
    </users>
    <quotas>
        <default>
            <interval>
                <duration>3600</duration>
                <queries>0</queries>
                <errors>0</errors>
                <result_rows>0</result_rows>
                <read_rows>0</read_rows>
                <execution_time>0</execution_time>
            </interval>
        </default>
    </quotas>
</yandex>
EOF
}

clickhouse_start() {
  local bin pid
  bin="$(clickhouse_server_bin)" || die "clickhouse-server binary not found"
  clickhouse_prepare
  rm -f "$CH_DIR/clickhouse.pid"
  # Foreground server in its own session, detached from this shell; we keep the pid.
  (
    cd "$CH_DIR"
    exec setsid nohup "$bin" --config-file="$CH_DIR/config.xml" </dev/null >>"$CH_DIR/log/stdout.log" 2>&1 9>&-
  ) &
  pid=$!
  echo "$pid" >"$CH_DIR/clickhouse.pid"
}

# ------------------------------------------------------------------ kafka --

kafka_java_tool() {
  local java
  java="$(java_bin)" || die "java not found"
  "$java" -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto \
    -Dlog4j.configuration="file:$KAFKA_DIR/config/tools-log4j.properties" \
    -cp "$KAFKA_DIR/libs/*" "$@"
}

kafka_write_pom() {
  cat >"$KAFKA_DIR/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<!-- Generated by scripts/services.sh: the jars needed to run a Kafka broker and its tools. -->
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>vigil.local</groupId>
  <artifactId>vigil-kafka-runtime</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_$KAFKA_SCALA_VERSION</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-reload4j</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-dependency-plugin</artifactId>
        <version>$MAVEN_DEPENDENCY_PLUGIN_VERSION</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF
}

# Download the broker jars once; a stamp file marks a complete download.
kafka_ensure_libs() {
  local libs="$KAFKA_DIR/libs" stamp="$KAFKA_DIR/libs/.vigil-kafka-$KAFKA_VERSION"
  [ -f "$stamp" ] && return 0
  mkdir -p "$KAFKA_DIR/logs"
  command -v mvn >/dev/null 2>&1 || die "mvn not found"
  kafka_write_pom
  log "fetching Kafka $KAFKA_VERSION jars with Maven (first run only)..."
  rm -rf "$libs.tmp"
  if ! (cd "$KAFKA_DIR" && mvn -B -ntp -f "$KAFKA_DIR/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:$MAVEN_DEPENDENCY_PLUGIN_VERSION:copy-dependencies \
    -DoutputDirectory="$libs.tmp" -DincludeScope=runtime 9>&-) >"$KAFKA_DIR/logs/mvn.log" 2>&1; then
    tail -n 40 "$KAFKA_DIR/logs/mvn.log" >&2 || true
    die "downloading the Kafka jars failed (full log: $KAFKA_DIR/logs/mvn.log)"
  fi
  [ -f "$libs.tmp/kafka_${KAFKA_SCALA_VERSION}-${KAFKA_VERSION}.jar" ] ||
    die "Kafka jar missing after download (see $KAFKA_DIR/logs/mvn.log)"
  rm -rf "$libs"
  mv "$libs.tmp" "$libs"
  touch "$stamp"
  log "Kafka jars in $libs ($(find "$libs" -name '*.jar' | wc -l) files)"
}

kafka_prepare() {
  mkdir -p "$KAFKA_DIR/config" "$KAFKA_DIR/data" "$KAFKA_DIR/logs"
  cat >"$KAFKA_DIR/config/server.properties" <<EOF
# Generated by scripts/services.sh; rewritten on every start.
# Single-node KRaft, combined broker + controller, loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$KAFKA_DIR/data
num.network.threads=3
num.io.threads=4
num.partitions=12
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
delete.topic.enable=true
log.retention.hours=168
log.segment.bytes=268435456
log.retention.check.interval.ms=300000
EOF
  cat >"$KAFKA_DIR/config/log4j.properties" <<'EOF'
# Generated by scripts/services.sh: broker logs go to files under kafka.logs.dir.
log4j.rootLogger=INFO, kafkaAppender
log4j.appender.kafkaAppender=org.apache.log4j.RollingFileAppender
log4j.appender.kafkaAppender.File=${kafka.logs.dir}/server.log
log4j.appender.kafkaAppender.MaxFileSize=50MB
log4j.appender.kafkaAppender.MaxBackupIndex=3
log4j.appender.kafkaAppender.layout=org.apache.log4j.PatternLayout
log4j.appender.kafkaAppender.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.log.LogCleaner=INFO
log4j.logger.state.change.logger=INFO
log4j.logger.kafka.authorizer.logger=INFO
EOF
  cat >"$KAFKA_DIR/config/tools-log4j.properties" <<'EOF'
# Generated by scripts/services.sh: command-line tools log warnings to stderr.
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.appender.stderr.Target=System.err
EOF
}

# Format the KRaft storage exactly once (meta.properties marks it formatted).
kafka_format_once() {
  local cid
  [ -f "$KAFKA_DIR/data/meta.properties" ] && return 0
  if [ -s "$KAFKA_DIR/cluster.id" ]; then
    cid="$(tr -d '[:space:]' <"$KAFKA_DIR/cluster.id")"
  else
    cid="$(kafka_java_tool kafka.tools.StorageTool random-uuid 2>/dev/null | tail -n 1 | tr -d '[:space:]')"
    [ -n "$cid" ] || die "could not generate a Kafka cluster id"
    echo "$cid" >"$KAFKA_DIR/cluster.id"
  fi
  log "formatting Kafka KRaft storage (cluster id $cid)"
  kafka_java_tool kafka.tools.StorageTool format -t "$cid" \
    -c "$KAFKA_DIR/config/server.properties" --ignore-formatted >&2 ||
    die "kafka storage format failed"
}

kafka_start() {
  local java pid
  java="$(java_bin)" || die "java not found"
  kafka_ensure_libs
  kafka_prepare
  kafka_format_once
  rm -f "$KAFKA_DIR/kafka.pid"
  # shellcheck disable=SC2086 # heap opts are a list of flags
  (
    cd "$KAFKA_DIR"
    exec setsid nohup "$java" $KAFKA_HEAP_OPTS \
      -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
      -XX:+ExplicitGCInvokesConcurrent -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
      -Dkafka.logs.dir="$KAFKA_DIR/logs" \
      -Dlog4j.configuration="file:$KAFKA_DIR/config/log4j.properties" \
      -cp "$KAFKA_DIR/libs/*" kafka.Kafka "$KAFKA_DIR/config/server.properties" \
      </dev/null >>"$KAFKA_DIR/logs/kafka.out" 2>&1 9>&-
  ) &
  pid=$!
  echo "$pid" >"$KAFKA_DIR/kafka.pid"
}

# --------------------------------------------------------------- postgres --

# Run a command as the server's owner: PostgreSQL refuses to run as root, so root
# uses the `postgres` account the Debian package creates.
as_pg_owner() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

postgres_prepare() {
  local bin="$1"
  mkdir -p "$PG_DIR"
  if [ "$(id -u)" = 0 ]; then
    getent passwd postgres >/dev/null || die "postgres: the 'postgres' user is missing (reinstall the postgresql package)"
    chown postgres:postgres "$PG_DIR"
    # A checkout under a private home (/root is 0700) cannot be reached by the server's user.
    setpriv --reuid=postgres --regid=postgres --init-groups -- test -w "$PG_DIR" ||
      die "postgres: the 'postgres' user cannot reach $PG_DIR; make its parent directories traversable (chmod o+x) or move the checkout"
    [ -d "$PG_DIR/data" ] && chown -R postgres:postgres "$PG_DIR/data"
    touch "$PG_DIR/server.log" && chown postgres:postgres "$PG_DIR/server.log"
  fi
  if [ ! -f "$PG_DIR/data/PG_VERSION" ]; then
    log "postgres: initdb in $PG_DIR/data"
    rm -rf "$PG_DIR/data"
    as_pg_owner "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --no-locale \
      >"$PG_DIR/initdb.log" 2>&1 9>&- || {
      show_log_tail postgres
      die "postgres: initdb failed"
    }
  fi
  return 0
}

postgres_start() {
  local bin pid
  bin="$(postgres_bin_dir)" || die "postgres binaries not found under /usr/lib/postgresql"
  postgres_prepare "$bin"
  rm -f "$PG_DIR/postgres.pid"
  local run=()
  [ "$(id -u)" = 0 ] && run=(setpriv --reuid=postgres --regid=postgres --init-groups --)
  # A local test server: loopback only (initdb --auth=trust), no fsync.
  (
    cd "$PG_DIR"
    exec setsid nohup "${run[@]}" "$bin/postgres" -D "$PG_DIR/data" -p "$POSTGRES_PORT" -k "$PG_DIR" \
      -c listen_addresses="$HOST" -c max_connections=200 -c fsync=off -c synchronous_commit=off \
      -c full_page_writes=off </dev/null >>"$PG_DIR/server.log" 2>&1 9>&-
  ) &
  pid=$!
  echo "$pid" >"$PG_DIR/postgres.pid"
}

# The database the apps use; created once the server answers.
postgres_after_ready() {
  local bin
  bin="$(postgres_bin_dir)"
  "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres -XtAc \
    "SELECT 1 FROM pg_database WHERE datname = 'vigil'" 2>/dev/null | grep -q 1 && return 0
  "$bin/psql" -h "$HOST" -p "$POSTGRES_PORT" -U postgres -d postgres -Xqc 'CREATE DATABASE vigil' >&2 ||
    die "postgres: could not create the database vigil"
  log "postgres: created database vigil"
}

# ---------------------------------------------------------------- dnsmasq --

dnsmasq_prepare() {
  mkdir -p "$DNS_DIR/hosts"
  # dnsmasq started as root drops to `nobody`: the hosts files must stay world-readable.
  chmod 755 "$DNS_DIR" "$DNS_DIR/hosts"
  [ -f "$DNS_RECORDS" ] || die "dnsmasq: $DNS_RECORDS is missing"
  cat >"$DNS_DIR/dnsmasq.conf" <<EOF
# Generated by scripts/services.sh; rewritten on every start.
port=$DNS_PORT
listen-address=$HOST
bind-interfaces
# No upstream, no /etc/hosts, no /etc/resolv.conf: answers come from the files below only.
no-resolv
no-hosts
no-poll
hostsdir=$DNS_DIR/hosts
pid-file=$DNS_DIR/dnsmasq.pid
log-facility=-
conf-file=$DNS_RECORDS
EOF
}

dnsmasq_start() {
  local bin pid
  bin="$(command -v dnsmasq || echo /usr/sbin/dnsmasq)"
  [ -x "$bin" ] || die "dnsmasq binary not found"
  dnsmasq_prepare
  rm -f "$DNS_DIR/dnsmasq.pid"
  (
    cd "$DNS_DIR"
    exec setsid nohup "$bin" --keep-in-foreground --conf-file="$DNS_DIR/dnsmasq.conf" \
      </dev/null >>"$DNS_DIR/dnsmasq.log" 2>&1 9>&-
  ) &
  pid=$!
  echo "$pid" >"$DNS_DIR/dnsmasq.pid"
}

# --------------------------------------------------------------- lifecycle --

# PostgreSQL: SIGINT is the "fast" shutdown (TERM would wait for every client to leave).
stop_signal_of() {
  case "$1" in
    postgres) echo INT ;;
    *) echo TERM ;;
  esac
}

stop_grace_of() {
  case "$1" in
    kafka) echo 60 ;;
    *) echo 30 ;;
  esac
}

stop_service() {
  local svc="$1" pid grace i
  is_daemon "$svc" || return 0
  if ! pid="$(find_pid "$svc")"; then
    rm -f "$(pidfile_of "$svc")"
    log "$svc: not running"
    return 0
  fi
  grace="$(stop_grace_of "$svc")"
  log "$svc: stopping (pid $pid)"
  kill -"$(stop_signal_of "$svc")" "$pid" 2>/dev/null || true
  for ((i = 0; i < grace * 5; i++)); do
    pid_alive "$pid" || break
    sleep 0.2
  done
  if pid_alive "$pid"; then
    log "$svc: still running after ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      pid_alive "$pid" || break
      sleep 0.2
    done
  fi
  pid_alive "$pid" && die "$svc: could not stop pid $pid"
  rm -f "$(pidfile_of "$svc")" "$(portfile_of "$svc")"
  log "$svc: stopped"
}

# Put a start marker in the files that collect a service's raw stdout/stderr,
# so log tails after a failed start are not mistaken for older runs.
mark_start() {
  local f
  case "$1" in
    redis) f="$REDIS_DIR/stdout.log" ;;
    clickhouse) f="$CH_DIR/log/stdout.log" ;;
    kafka) f="$KAFKA_DIR/logs/kafka.out" ;;
    postgres) f="$PG_DIR/server.log" ;;
    dnsmasq) f="$DNS_DIR/dnsmasq.log" ;;
  esac
  mkdir -p "$(dirname "$f")"
  printf '==== %s: start requested by scripts/services.sh ====\n' "$(date -u '+%Y-%m-%dT%H:%M:%SZ')" >>"$f"
}

# Start svc unless it is already running. Sets STARTED[svc]=1 when it launched it.
declare -A STARTED=()
launch_service() {
  local svc="$1" pid port recorded
  is_daemon "$svc" || return 0
  if pid="$(find_pid "$svc")"; then
    recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
    if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then
      log "$svc: running with ports $recorded, configured $(ports_of "$svc"); restarting"
      stop_service "$svc"
    else
      return 0
    fi
  fi
  rm -f "$(pidfile_of "$svc")"
  for port in $(ports_of "$svc"); do
    if port_in_use "$port"; then
      describe_port_owner "$port"
      die "$svc: port $port on $HOST is already in use by a process not managed by this script. Stop that process, or choose another port with $(port_var_of "$svc" "$port")=<port>."
    fi
  done
  log "$svc: starting on $HOST port(s) $(ports_of "$svc")"
  mkdir -p "$(dir_of "$svc")"
  mark_start "$svc"
  case "$svc" in
    redis) redis_start ;;
    clickhouse) clickhouse_start ;;
    kafka) kafka_start ;;
    postgres) postgres_start ;;
    dnsmasq) dnsmasq_start ;;
  esac
  ports_of "$svc" >"$(portfile_of "$svc")"
  STARTED[$svc]=1
}

wait_ready() {
  local svc="$1" start=$SECONDS pid="" gone_since=""
  if ! is_daemon "$svc"; then
    probe "$svc" || die "$svc: '$(program_of "$svc" || echo "$svc") --version' does not answer"
    log "$svc: installed ($(program_of "$svc"))"
    return 0
  fi
  while :; do
    if probe "$svc"; then
      [ "$svc" = postgres ] && postgres_after_ready
      if [ -n "${STARTED[$svc]:-}" ]; then
        log "$svc: ready after $((SECONDS - start))s (pid $(find_pid "$svc" || echo '?'))"
      else
        log "$svc: already running (pid $(find_pid "$svc" || echo '?'))"
      fi
      return 0
    fi
    if pid="$(find_pid "$svc")"; then
      gone_since=""
    else
      # redis daemonizes and writes its pid file a moment later; allow a few seconds.
      [ -n "$gone_since" ] || gone_since=$SECONDS
      if ((SECONDS - gone_since >= 5)); then
        show_log_tail "$svc"
        die "$svc: process exited during startup (logs above; directory $(dir_of "$svc"))"
      fi
    fi
    if ((SECONDS - start >= START_TIMEOUT)); then
      show_log_tail "$svc"
      die "$svc: did not answer within ${START_TIMEOUT}s (pid ${pid:-none}); logs above. Try 'scripts/services.sh down $svc' then 'up $svc'."
    fi
    sleep 1
  done
}

LOCK_HELD=0
acquire_lock() {
  [ "$LOCK_HELD" = 1 ] && return 0
  mkdir -p "$SERVICES_DIR"
  exec 9>"$LOCK_FILE"
  if ! flock -n 9; then
    log "waiting for another scripts/services.sh run to finish (lock $LOCK_FILE)..."
    flock -w 1800 9 || die "timed out waiting for $LOCK_FILE"
  fi
  LOCK_HELD=1
}

parse_services() {
  SERVICES=()
  local s
  if [ "$#" -eq 0 ]; then
    SERVICES=("${ALL_SERVICES[@]}")
    return
  fi
  for s in "$@"; do
    valid_service "$s" || die "unknown service '$s' (expected: ${ALL_SERVICES[*]})"
    SERVICES+=("$s")
  done
}

cmd_up() {
  parse_services "$@"
  acquire_lock
  local svc need_install=() quick=1
  # Fast path: everything requested already answers.
  for svc in "${SERVICES[@]}"; do
    if { is_daemon "$svc" && ! find_pid "$svc" >/dev/null; } || ! probe "$svc"; then
      quick=0
      break
    fi
  done
  if [ "$quick" = 1 ]; then
    local recorded
    for svc in "${SERVICES[@]}"; do
      recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
      if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then quick=0; fi
    done
  fi
  if [ "$quick" = 1 ]; then
    log "already running: ${SERVICES[*]}"
    return 0
  fi
  for svc in "${SERVICES[@]}"; do
    if is_daemon "$svc"; then
      find_pid "$svc" >/dev/null || need_install+=("$svc")
    else
      probe "$svc" || need_install+=("$svc")
    fi
  done
  [ "${#need_install[@]}" -gt 0 ] && ensure_packages "${need_install[@]}"
  # Start everything first, then wait, so the services boot in parallel.
  for svc in "${SERVICES[@]}"; do
    launch_service "$svc"
  done
  for svc in "${SERVICES[@]}"; do
    wait_ready "$svc"
  done
}

cmd_down() {
  parse_services "$@"
  acquire_lock
  local svc
  # Reverse dependency order: dnsmasq, PostgreSQL, Kafka, ClickHouse, Redis (Chromium is not a server).
  for svc in dnsmasq postgres kafka clickhouse redis; do
    [[ " ${SERVICES[*]} " == *" $svc "* ]] && stop_service "$svc"
  done
  return 0
}

cmd_status() {
  parse_services "$@"
  local svc pid state ports recorded
  for svc in "${SERVICES[@]}"; do
    if ! is_daemon "$svc"; then
      if probe "$svc"; then state=installed; else state=missing; fi
      printf '%-11s %-13s %s\n' "$svc" "$state" "$(program_of "$svc" || echo '-')"
      continue
    fi
    ports="$(ports_of "$svc" | sed "s/\([0-9]\+\)/$HOST:\1/g; s/ /,/g")"
    if pid="$(find_pid "$svc")"; then
      recorded="$(cat "$(portfile_of "$svc")" 2>/dev/null || true)"
      if [ -n "$recorded" ] && [ "$recorded" != "$(ports_of "$svc")" ]; then
        # Started with other VIGIL_*_PORT values than the current environment's.
        ports="$(sed "s/\([0-9]\+\)/$HOST:\1/g; s/ /,/g" <<<"$recorded")"
        printf '%-11s %-13s %-32s pid %s (other ports than configured)\n' "$svc" running "$ports" "$pid"
        continue
      fi
      if probe "$svc"; then state=running; else state=unresponsive; fi
      printf '%-11s %-13s %-32s pid %s\n' "$svc" "$state" "$ports" "$pid"
    else
      printf '%-11s %-13s %s\n' "$svc" stopped "$ports"
    fi
  done
}

cmd_env() {
  printf 'REDIS_URL=redis://%s:%s\n' "$HOST" "$REDIS_PORT"
  printf 'CLICKHOUSE_URL=http://%s:%s\n' "$HOST" "$CLICKHOUSE_HTTP_PORT"
  printf 'KAFKA_BROKERS=%s:%s\n' "$HOST" "$KAFKA_PORT"
  printf 'POSTGRES_URL=postgres://postgres@%s:%s/vigil\n' "$HOST" "$POSTGRES_PORT"
  printf 'DNS_SERVER=%s:%s\n' "$HOST" "$DNS_PORT"
  printf 'DNS_HOSTS_DIR=%s\n' "$DNS_DIR/hosts"
  printf 'CHROMIUM_PATH=%s\n' "$(chromium_bin || echo /usr/bin/chromium)"
}

cmd_logs() {
  [ "$#" -ge 1 ] || die "usage: scripts/services.sh logs <redis|clickhouse|kafka|postgres|dnsmasq> [lines]"
  valid_service "$1" || die "unknown service '$1'"
  local f lines="${2:-100}"
  for f in $(log_files_of "$1"); do
    [ -s "$f" ] || continue
    printf '==> %s <==\n' "$f"
    tail -n "$lines" "$f"
  done
}

cmd_kafka_run_class() {
  [ "$#" -ge 1 ] || die "usage: scripts/services.sh kafka-run-class <class> [args...]"
  [ -f "$KAFKA_DIR/libs/.vigil-kafka-$KAFKA_VERSION" ] || die "Kafka jars not present; run 'scripts/services.sh up kafka' first"
  [ -f "$KAFKA_DIR/config/tools-log4j.properties" ] || { mkdir -p "$KAFKA_DIR/config" && kafka_prepare; }
  kafka_java_tool "$@"
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
