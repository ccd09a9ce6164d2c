#!/usr/bin/env bash
# Prints login throughput and latency, and /health/live latency alone and under login
# load, for a release build of authd on its embedded PostgreSQL. Uses wrk.
#   Benchmarks/login.sh            # 10 s per run
#   DURATION=30s Benchmarks/login.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/system-packages
if ! command -v wrk >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get install -y -qq wrk >&2
    else
        echo "This benchmark needs wrk: sudo apt-get install -y wrk" >&2
        exit 1
    fi
fi

duration=${DURATION:-10s}
port=${PORT:-18089}
swift build -c release --product authd >&2
bin=.build/release/authd

work=$(mktemp -d)
chmod 755 "$work"
"$bin" serve --data-dir "$work/data" --port "$port" --log-level warning >"$work/serve.out" 2>"$work/serve.err" &
server=$!
cleanup() {
    kill -TERM "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 300); do
    grep -q "listening" "$work/serve.out" 2>/dev/null && break
    sleep 0.1
done
printf '%s' 'correct horse battery staple' | "$bin" user add bench --password-stdin --data-dir "$work/data" --log-level warning >&2

cat >"$work/login.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"username": "bench", "password": "correct horse battery staple"}'
wrk.headers["Content-Type"] = "application/json"
done = function(summary, latency, requests)
    io.write(string.format("non-2xx or errors: %d\n", summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout))
end
LUA

echo "== cores: $(nproc); argon2id m=19456 KiB t=2 p=1; $duration per run"
echo "== POST /login (successful logins), 4 connections"
wrk -t2 -c4 -d"$duration" --latency -s "$work/login.lua" "http://127.0.0.1:$port/login" | grep -E "Requests/sec|Latency|50%|99%|non-2xx"
echo "== GET /health/live alone, 8 connections"
wrk -t1 -c8 -d"$duration" --latency "http://127.0.0.1:$port/health/live" | grep -E "Requests/sec|50%|99%"
echo "== GET /health/live while 4 connections log in"
wrk -t1 -c4 -d"$duration" -s "$work/login.lua" "http://127.0.0.1:$port/login" >"$work/background.txt" &
loader=$!
sleep 1
wrk -t1 -c8 -d"$duration" --latency "http://127.0.0.1:$port/health/live" | grep -E "Requests/sec|50%|99%"
wait "$loader"
echo "   (logins meanwhile: $(grep Requests/sec "$work/background.txt"))"
