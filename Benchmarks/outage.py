#!/usr/bin/env python3
"""Measures how authd answers while its PostgreSQL is stopped under login load, and how
fast it recovers, and prints each figure beside its limit:

  - the median time to a 503 once the outage is known (limit 100 ms),
  - how long after the stop the outage was known (the first 503; the deadline is 5 s),
  - how long after PostgreSQL accepts connections again the first login succeeds (limit 2 s).

It starts a throwaway PostgreSQL cluster of its own (so it can stop and start it) and a
build of authd on it, then runs CONNECTIONS clients that log in without pause.

    Benchmarks/outage.py                   # release build
    CONFIG=debug CONNECTIONS=16 Benchmarks/outage.py
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CONFIG = os.environ.get("CONFIG", "release")
CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))
PG_PORT = int(os.environ.get("PG_PORT", "25432"))
PORT = int(os.environ.get("PORT", "18090"))
PASSWORD = "correct horse battery staple"


def as_postgres(args):
    """PostgreSQL refuses root: run its programs as the postgres account (or nobody) then."""
    if os.geteuid() != 0:
        return args
    user = "postgres" if subprocess.run(["id", "postgres"], capture_output=True).returncode == 0 else "nobody"
    return ["runuser", "-u", user, "--"] + args


def pg_bin(name):
    found = shutil.which(name)
    if found:
        return found
    out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True)
    return os.path.join(out.stdout.strip(), name)


def main():
    subprocess.run([os.path.join(ROOT, "scripts/system-packages")], check=True)
    subprocess.run(["swift", "build", "-c", CONFIG, "--product", "authd"], cwd=ROOT, check=True, stdout=sys.stderr)
    authd = os.path.join(ROOT, ".build", CONFIG, "authd")

    work = tempfile.mkdtemp(prefix="authd-outage-")
    os.chmod(work, 0o755)
    data = os.path.join(work, "data")
    os.mkdir(data, 0o700)
    if os.geteuid() == 0:
        user = "postgres" if subprocess.run(["id", "postgres"], capture_output=True).returncode == 0 else "nobody"
        shutil.chown(data, user)
        shutil.chown(work, user)
    pg_ctl = pg_bin("pg_ctl")
    subprocess.run(as_postgres([pg_bin("initdb"), "-D", data, "-U", "app", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]),
                   check=True, stdout=subprocess.DEVNULL)
    start = as_postgres([pg_ctl, "-D", data, "-l", os.path.join(work, "pg.log"), "-w", "-o",
                         f"-k {work} -p {PG_PORT} -c listen_addresses=127.0.0.1 -c fsync=off"]) + ["start"]
    stop = as_postgres([pg_ctl, "-D", data, "-m", "fast", "-w", "stop"])
    subprocess.run(start, check=True, stdout=subprocess.DEVNULL)
    url = f"postgres://app@127.0.0.1:{PG_PORT}/postgres?sslmode=disable"
    server = None
    try:
        subprocess.run([authd, "user", "add", "bench", "--password-stdin", "--database-url", url, "--log-level", "error"],
                       input=PASSWORD, text=True, check=True, stdout=subprocess.DEVNULL)
        server = subprocess.Popen([authd, "serve", "--port", str(PORT), "--database-url", url, "--log-level", "critical"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        server.stdout.readline()  # "authd listening on …"

        records = []  # (sent, received, status)
        lock = threading.Lock()
        running = threading.Event()
        running.set()
        body = json.dumps({"username": "bench", "password": PASSWORD})

        def client():
            connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
            while running.is_set():
                sent = time.monotonic()
                try:
                    connection.request("POST", "/login", body, {"Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    status = response.status
                except Exception:
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
                    status = 0
                with lock:
                    records.append((sent, time.monotonic(), status))
            connection.close()

        threads = [threading.Thread(target=client) for _ in range(CONNECTIONS)]
        for thread in threads:
            thread.start()
        time.sleep(3)
        print("stopping PostgreSQL", file=sys.stderr)
        stopped = time.monotonic()
        subprocess.run(stop, check=True, stdout=subprocess.DEVNULL)
        time.sleep(5)
        subprocess.run(start, check=True, stdout=subprocess.DEVNULL)
        back = time.monotonic()  # pg_ctl -w returns once the server accepts connections
        print("PostgreSQL is back", file=sys.stderr)
        time.sleep(5)
        running.clear()
        for thread in threads:
            thread.join()
        print("load stopped", file=sys.stderr)
    finally:
        if server:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                print("authd did not stop within 15 s of SIGTERM", file=sys.stderr)
                server.kill()
                server.wait()
        subprocess.run(stop, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)

    refused = [r for r in records if r[2] == 503 and r[1] >= stopped]
    if not refused:
        print("no 503 during the outage: nothing to measure")
        return 1
    known = min(r[1] for r in refused)
    after = [r[1] - r[0] for r in refused if r[0] >= known and r[1] < back]
    successes = [r[1] for r in records if r[2] == 200 and r[0] >= back]
    other = sorted({r[2] for r in records if r[2] not in (200, 503)})
    median_ms = statistics.median(after) * 1000 if after else float("nan")
    p99_ms = (sorted(after)[int(len(after) * 0.99) - 1] * 1000) if after else float("nan")
    recovery = (min(successes) - back) if successes else float("inf")
    print(f"== authd ({CONFIG}) under {CONNECTIONS} login connections; PostgreSQL stopped for 5 s, then started")
    print(f"{'figure':<52} {'measured':>10} {'limit':>10}")
    print(f"{'outage known after the stop (first 503)':<52} {(known - stopped) * 1000:>8.0f} ms {'5000 ms':>10}  (the database deadline)")
    print(f"{'503s once known: median':<52} {median_ms:>8.1f} ms {'100 ms':>10}")
    print(f"{'503s once known: p99':<52} {p99_ms:>8.1f} ms")
    print(f"{'503s answered once known':<52} {len(after):>10}")
    print(f"{'first successful login after PostgreSQL is back':<52} {recovery * 1000:>8.0f} ms {'2000 ms':>10}")
    print(f"{'answers other than 200 and 503 (0: no answer)':<52} {str(other or 'none'):>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
