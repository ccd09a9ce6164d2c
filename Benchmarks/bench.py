#!/usr/bin/env python3
"""Measures every hot path of authd and its contract tools against its limit or a peer
measured in the same run, and prints one Markdown table.

Run it through scripts/bench, which installs the tools and builds release first. It starts
a throwaway PostgreSQL cluster (fsync off), authd on it, `contract stub` and WireMock, and
drives them with wrk on loopback. Environment: DURATION (wrk run length, default 10s).
Arguments name the sections to run (logins, fastapi, verify, stub, library, slow, instances,
oauth, oidc, replicas, attack, scale, ci); default all but attack, which takes ATTACK_MINUTES (default 10) minutes on
its own, scale, which loads 16 million rows first (SCALE, default 1.0, multiplies them), and
ci, which times `.ci/run` on a fresh clone of HEAD (about 10 minutes).
"""
import base64
import collections
import hashlib
import json
import os
import pathlib
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
RELEASE = ROOT / ".build" / "release"
DURATION = os.environ.get("DURATION", "10s")
PASSWORD = "correct horse battery staple"
CLIENT_SECRET = "s" * 40
rows = []
# authd refuses a database URL without a key-encryption key.
os.environ.setdefault("AUTHD_KEY_ENCRYPTION_KEY", base64.b64encode(os.urandom(32)).decode())


def row(figure, value, limit="", ratio="", target=""):
    rows.append((figure, value, limit, ratio, target))
    print(f"  {figure}: {value}" + (f" | {limit}" if limit else "") + (f" | {ratio}" if ratio else ""), file=sys.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout} s")


def post_json(url, body, headers=None):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


# --- wrk -------------------------------------------------------------------------------

def _ms(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def wrk(url, connections, threads=2, script=None, duration=None, headers=()):
    command = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration or DURATION}", "--latency", "--timeout", "10s"]
    for header in headers:
        command += ["-H", header]
    if script:
        command += ["-s", str(script)]
    run = subprocess.run(command + [url], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"wrk failed on {url}: {run.stdout}{run.stderr}")
    output = run.stdout
    result = {"rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
              "requests": int(re.search(r"(\d+) requests in", output).group(1)), "output": output}
    for label, key in (("50%", "p50"), ("99%", "p99")):
        result[key] = _ms(re.search(rf"^\s+{re.escape(label)}\s+(\S+)", output, re.M).group(1))
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output)
    result["errors"] = (int(bad.group(1)) if bad else 0) + (sum(map(int, errors.groups())) if errors else 0)
    return result


def note_errors(result):
    return f" ({result['errors']} errors)" if result["errors"] else ""


# --- processes -------------------------------------------------------------------------

def as_unprivileged(command):
    if os.geteuid() != 0:
        return command
    try:
        import pwd
        pwd.getpwnam("postgres")
        return ["runuser", "-u", "postgres", "--"] + command
    except KeyError:
        return ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command


def postgres_bin(name):
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(pathlib.Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))
    if not candidates:
        raise RuntimeError(f"{name} not found")
    return str(candidates[-1])


class Cluster:
    """A throwaway PostgreSQL cluster with fsync off, on a loopback TCP port; `settings` are
    more `-c name=value` options."""

    def __init__(self, work, name="pg", settings=()):
        self.dir = work / name
        self.dir.mkdir()
        os.chmod(self.dir, 0o777)
        self.port = free_port()
        subprocess.run(as_unprivileged([postgres_bin("initdb"), "-D", str(self.dir / "data"), "-U", "authd",
                                        "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]),
                       check=True, capture_output=True)
        self.start(settings)

    def start(self, settings=()):
        options = (f"-k {self.dir} -p {self.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
                   + "".join(f" -c {setting}" for setting in settings))
        subprocess.run(as_unprivileged([postgres_bin("pg_ctl"), "-D", str(self.dir / "data"), "-l",
                                        str(self.dir / "log"), "-w", "-o", options, "start"]),
                       check=True, capture_output=True)
        self.url = self.url_of("postgres")

    def url_of(self, database):
        return f"postgres://authd@127.0.0.1:{self.port}/{database}"

    def sql(self, query):
        """Runs `query` with psql as the cluster's owner; its rows as text, fields separated by spaces."""
        run = subprocess.run(as_unprivileged([postgres_bin("psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "authd",
                                              "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-At", "-F", " ", "-c", query]),
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"psql failed: {run.stderr.strip()}\n{query}")
        return run.stdout

    def postmaster(self):
        """The postmaster's process id (the first line of postmaster.pid)."""
        return int((self.dir / "data" / "postmaster.pid").read_text().split()[0])

    def stop(self):
        subprocess.run(as_unprivileged([postgres_bin("pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate", "stop"]),
                       capture_output=True)


class Standby(Cluster):
    """A streaming replica of `primary`, copied with `pg_basebackup -R`, on a loopback port of
    its own."""

    def __init__(self, work, primary, name="standby"):
        self.dir = work / name
        self.dir.mkdir()
        os.chmod(self.dir, 0o777)
        self.port = free_port()
        subprocess.run(as_unprivileged([postgres_bin("pg_basebackup"), "-h", "127.0.0.1", "-p", str(primary.port), "-U", "authd",
                                        "-D", str(self.dir / "data"), "-R", "-X", "stream", "-c", "fast", "--no-sync"]),
                       check=True, capture_output=True)
        self.start()


class Service:
    """A child process, stopped with SIGTERM at the end."""

    def __init__(self, command, log):
        self.log = open(log, "w")
        self.process = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, cwd=ROOT)

    def rss_mib(self, field="VmRSS"):
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()


class Authd(Service):
    def __init__(self, work, cluster, name, hash_options=(), serve_options=(), database="postgres"):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.database = ["--database-url", cluster.url_of(database)]
        self.hash_options = list(hash_options)
        super().__init__([str(RELEASE / "authd"), "serve", "--port", str(self.port), "--log-level", "warning",
                          *self.database, *self.hash_options, *serve_options], work / f"{name}.log")
        wait_http(self.base + "/health/ready")

    def add_user(self, name):
        """Creates `name` with PASSWORD, or gives it PASSWORD again when an earlier section on
        the same cluster created it."""
        subprocess.run([str(RELEASE / "authd"), "user", "add", name, "--password-stdin", "--update-existing",
                        "--log-level", "warning", *self.database, *self.hash_options],
                       input=PASSWORD, text=True, check=True, capture_output=True)

    def add_users(self, prefix, count=16):
        """`count` accounts `prefix-0`, `prefix-1`, …: one per connection, so no account has
        more logins in flight than authd's per-username-and-address limit (10) lets through."""
        names = [f"{prefix}-{index}" for index in range(count)]
        for name in names:
            self.add_user(name)
        return names

    def login(self, name):
        return post_json(self.base + "/login", {"username": name, "password": PASSWORD})

    def add_client(self, name, *options):
        """Registers (or replaces) the relying party `name` with `options`; its secret, unless
        it is public, is CLIENT_SECRET."""
        subprocess.run([str(RELEASE / "authd"), "client", "add", name, "--replace", *options,
                        *([] if "--public" in options else ["--secret-stdin"]), "--log-level", "warning", *self.database],
                       input=CLIENT_SECRET, text=True, check=True, capture_output=True)


# --- CPU from /proc --------------------------------------------------------------------

TICKS = os.sysconf("SC_CLK_TCK")
HASHING_THREADS = "authd-hash-"  # authd's password-hashing threads: authd-hash-0, authd-hash-1, …


def _stat(path):
    """The fields of a /proc stat file after the command name: [1] ppid, [11:13] utime and
    stime, [13:15] the same of the children it has waited for, in clock ticks."""
    with open(path) as stat:
        return stat.read().rsplit(")", 1)[1].split()


def thread_cpu(pid):
    """CPU seconds process `pid` has used per thread name (/proc/PID/task/*/comm; threads of
    one name summed)."""
    seconds = collections.Counter()
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = _stat(task / "stat")
            seconds[(task / "comm").read_text().strip()] += (int(fields[11]) + int(fields[12])) / TICKS
        except (FileNotFoundError, ProcessLookupError):
            pass  # the thread ended meanwhile
    return seconds


def hashing_cpu(pid):
    """CPU seconds authd's hashing threads have used."""
    return sum(used for name, used in thread_cpu(pid).items() if name.startswith(HASHING_THREADS))


def context_switches(pid):
    """How many times the threads of process `pid` have waited (voluntary context switches):
    each hand-off of a request between threads that finds the next one asleep is one."""
    total = 0
    for task in pathlib.Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", (task / "status").read_text(), re.M).group(1))
        except (FileNotFoundError, ProcessLookupError):
            continue  # the thread ended meanwhile
    return total


def children(pid):
    """The processes whose parent is `pid` that are alive now: {child pid: its _stat fields}."""
    found = {}
    for entry in pathlib.Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = _stat(entry / "stat")
            except (FileNotFoundError, ProcessLookupError):
                continue  # it ended meanwhile
            if int(fields[1]) == pid:
                found[int(entry.name)] = fields
    return found


def tree_cpu(pid):
    """CPU seconds process `pid` (every thread) and its children have used, ended children
    included: a parent's cutime and cstime count those it has waited for. Covers a
    PostgreSQL cluster from its postmaster, nginx from its master, authd alone."""
    total = sum(int(value) for value in _stat(f"/proc/{pid}/stat")[11:15])
    total += sum(int(fields[11]) + int(fields[12]) for fields in children(pid).values())
    return total / TICKS


def cpu_used(action, counters):
    """action()'s result, and the CPU seconds each of `counters` (name: function returning
    the seconds used so far) went up by while it ran."""
    before = {name: read() for name, read in counters.items()}
    result = action()
    return result, {name: read() - before[name] for name, read in counters.items()}


def probe(port, seconds, interval=0.01):
    """Latencies of GET /health/live sent every `interval` seconds on one keep-alive
    connection, like a load balancer's health check: (p50, p99) in milliseconds."""
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    samples = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        connection.request("GET", "/health/live")
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"/health/live answered {response.status}")
        samples.append((time.monotonic() - start) * 1000)
        time.sleep(max(0, interval - (time.monotonic() - start)))
    connection.close()
    samples.sort()
    return samples[len(samples) // 2], samples[len(samples) * 99 // 100]


def lua(work, name, text):
    path = work / name
    path.write_text(text)
    return path


def form_script(work, name, client, body):
    """A wrk script that POSTs the form `body`, authenticated as `client` (HTTP Basic, CLIENT_SECRET)."""
    basic = base64.b64encode(f"{client}:{CLIENT_SECRET}".encode()).decode()
    return lua(work, name, f"""
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Authorization"] = "Basic {basic}"
wrk.body = "{body}"
""")


def login_script(work, users):
    """Logins of `users` (a name, or a list taken in turn request by request)."""
    names = [users] if isinstance(users, str) else list(users)
    listed = ", ".join(f'"{name}"' for name in names)
    return lua(work, f"login-{names[0]}-{len(names)}.lua", f"""
local users = {{{listed}}}
local turn = 0
request = function()
    turn = turn + 1
    local body = '{{"username": "' .. users[(turn % #users) + 1] .. '", "password": "{PASSWORD}"}}'
    return wrk.format("POST", nil, {{["Content-Type"] = "application/json"}}, body)
end
""")


# --- the rows --------------------------------------------------------------------------

def hashing():
    output = subprocess.run([str(RELEASE / "HashBenchmark")], check=True, capture_output=True, text=True).stdout
    figures = {line.split()[0]: line.split()[1] for line in output.splitlines() if line.strip()}
    libraries = ("authd", "portable", "libsodium")
    verify = {lib: float(figures[f"verify_ms.{lib}"]) for lib in libraries}
    ceiling = {lib: float(figures[f"ceiling_per_s.{lib}"]) for lib in libraries}
    simd = {"1": "portable", "2": "SSSE3", "3": "AVX2"}.get(figures.get("simd"), "?")
    row(f"Argon2id verify, one thread, m=19456 t=2 p=1 (authd's, {simd})", f"{verify['authd']:.1f} ms",
        f"libsodium: {verify['libsodium']:.1f} ms; portable build: {verify['portable']:.1f} ms",
        f"{verify['libsodium'] / verify['authd']:.2f}× / {verify['portable'] / verify['authd']:.2f}× faster")
    row("Argon2id ceiling, every core, no HTTP (authd's)", f"{ceiling['authd']:.1f} /s",
        f"libsodium: {ceiling['libsodium']:.1f} /s; portable: {ceiling['portable']:.1f} /s",
        f"{ceiling['authd'] / ceiling['libsodium']:.2f} / {ceiling['authd'] / ceiling['portable']:.2f}")
    return verify["authd"], ceiling["authd"], max(ceiling.values())


def login_alone(work, authd, user="bench"):
    """Logins of `user` on one connection, one at a time."""
    return wrk(authd.base + "/login", 1, threads=1, script=login_script(work, user))


def me_load(authd, user="bench"):
    """GET /me on 16 connections, with one access token of `user`."""
    token = authd.login(user)["access_token"]
    return wrk(authd.base + "/me", 16, headers=[f"Authorization: Bearer {token}"])


def refresh_load(work, authd, user="bench"):
    """POST /token/refresh on 16 connections, each presenting the refresh token the previous
    answer gave it (a session's tokens rotate as a client's would)."""
    # One more token than connections: wrk calls request() once before the run starts.
    tokens = [authd.login(user)["refresh_token"] for _ in range(17)]
    script = lua(work, "refresh.lua", """
local tokens = {%s}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
    local token = table.remove(tokens)
    return wrk.format(nil, "/token/refresh", nil, '{"refresh_token": "' .. token .. '"}')
end
response = function(status, headers, body)
    local token = body:match('"refresh_token"%%s*:%%s*"([^"]+)"')
    if token then table.insert(tokens, token) end
end
""" % ", ".join(f'"{t}"' for t in tokens))
    return wrk(authd.base + "/token/refresh", 16, threads=1, script=script)


def pgbench_rotation(work, cluster, authd, user="bench", clients=16):
    """PostgreSQL alone running what a refresh runs, through pgbench with `clients` clients,
    prepared: each client rotates a session of `user`'s of its own (made by a login), the
    successor becoming the next token presented, in the one statement authd sends
    (RefreshStatement: the rotation function and the audit event of its outcome). Returns the
    rotations per second and how many of the run's transactions rotated (all should)."""
    tokens = [authd.login(user)["refresh_token"] for _ in range(clients)]
    rows = ", ".join(f"({index}, '{hashlib.sha256(token.encode()).hexdigest()}')" for index, token in enumerate(tokens))
    cluster.sql(f"DROP TABLE IF EXISTS bench_seeds; CREATE TABLE bench_seeds (client int PRIMARY KEY, token_hash text); "
                f"INSERT INTO bench_seeds VALUES {rows}")
    script = work / "rotation.sql"
    script.write_text(r"""
\if :started = 0
SELECT token_hash AS presented FROM bench_seeds WHERE client = :client_id \gset
\set started 1
\endif
\set n random(1, 1000000000000)
WITH successor AS (SELECT md5(:n::text || '-' || :client_id::text) || md5(:client_id::text || '-' || :n::text) AS token_hash),
     rotation AS MATERIALIZED (
         SELECT r.outcome, r.owner, r.granted_until, r.session, r.granted_scopes, successor.token_hash AS successor
         FROM successor, rotate_refresh_token(:presented, successor.token_hash, now() + interval '30 days', now(), NULL) AS r),
     rotated AS (INSERT INTO audit_events (at, kind, user_id, username_key, client_address, request_id, detail)
                 SELECT now(), 'token_refreshed', owner, NULL, '127.0.0.1', 'pgbench', NULL FROM rotation WHERE outcome = 'rotated'),
     reused AS (INSERT INTO audit_events (at, kind, user_id, username_key, client_address, request_id, detail)
                SELECT now(), 'refresh_reuse_detected', owner, NULL, '127.0.0.1', 'pgbench', NULL FROM rotation WHERE outcome = 'reused')
SELECT successor AS presented FROM rotation \gset
""")
    before = int(cluster.sql("SELECT count(*) FROM audit_events WHERE request_id = 'pgbench'").strip())
    run = subprocess.run([postgres_bin("pgbench"), "-h", "127.0.0.1", "-p", str(cluster.port), "-U", "authd", "-n", "-M", "prepared",
                          "-c", str(clients), "-j", "2", "-T", DURATION.rstrip("s"), "-D", "started=0", "-f", str(script), "postgres"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"pgbench failed: {run.stdout}{run.stderr}")
    tps = float(re.search(r"tps = ([\d.]+) \(without initial connection time\)", run.stdout).group(1))
    transactions = int(re.search(r"number of transactions actually processed: (\d+)", run.stdout).group(1))
    rotated = int(cluster.sql("SELECT count(*) FROM audit_events WHERE request_id = 'pgbench'").strip()) - before
    return tps, f"{rotated} of {transactions} rotated"


def pin(pid, core, with_children=False):
    """Keeps process `pid` (every thread), and with `with_children` those it has forked, on `core`;
    what they fork later inherits it."""
    for each in [pid, *(children(pid) if with_children else [])]:
        subprocess.run(["taskset", "-a", "-p", "-c", str(core), str(each)], capture_output=True)


def refresh_on_separate_cores(work, cluster, authd):
    """Refresh and pgbench's rotation again with PostgreSQL on one core and the other core
    for everything in front of it (authd and wrk; pgbench's client), as a database on a
    machine of its own would be: (req/s, authd ms per refresh, PostgreSQL ms per refresh)
    and authd's threads' waits per refresh (context_switches) for refresh, and (rotations/s,
    PostgreSQL ms per rotation, what rotated) for pgbench."""
    everything = os.sched_getaffinity(0)
    front, database = sorted(everything)[:2]
    postmaster = cluster.postmaster()
    try:
        os.sched_setaffinity(0, {front})  # wrk, pgbench and psql, started from here
        pin(authd.process.pid, front)
        pin(postmaster, database, with_children=True)
        counters = {"authd": lambda: tree_cpu(authd.process.pid), "postgres": lambda: tree_cpu(postmaster),
                    "waits": lambda: context_switches(authd.process.pid)}
        rotated, cpu = cpu_used(lambda: refresh_load(work, authd), counters)
        refresh = (rotated["rps"], *(cpu[name] * (1 if name == "waits" else 1000) / rotated["requests"]
                                     for name in ("authd", "postgres", "waits")))
        (alone, rotations), cpu = cpu_used(lambda: pgbench_rotation(work, cluster, authd), counters)
        seconds = float(DURATION.rstrip("s"))
        return refresh, (alone, cpu["postgres"] * 1000 / (alone * seconds), rotations)
    finally:
        os.sched_setaffinity(0, everything)
        cores = ",".join(map(str, sorted(everything)))
        pin(authd.process.pid, cores)
        pin(postmaster, cores, with_children=True)


def logins(work, cluster, verify_ms, ceiling, fastest):
    authd = Authd(work, cluster, "authd")
    try:
        authd.add_user("bench")
        authd.login("bench")
        time.sleep(1)
        idle = authd.rss_mib()
        script = login_script(work, authd.add_users("bench"))

        peak = [0.0]
        sampling = threading.Event()

        def sample():
            while not sampling.is_set():
                peak[0] = max(peak[0], authd.rss_mib())
                time.sleep(0.2)

        sampler = threading.Thread(target=sample)
        sampler.start()
        pid = authd.process.pid
        result, cpu = cpu_used(lambda: wrk(authd.base + "/login", 16, script=script),
                               {"authd": lambda: tree_cpu(pid), "hashing": lambda: hashing_cpu(pid)})
        sampling.set()
        sampler.join()
        ratio = result["rps"] / ceiling
        row("logins/s, 16 connections", f"{result['rps']:.1f} (p50 {result['p50']:.0f} ms, p99 {result['p99']:.0f} ms){note_errors(result)}",
            f"Argon2id ceiling {ceiling:.1f} /s (fastest on the machine {fastest:.1f})",
            f"{ratio:.2f} ({result['rps'] / fastest:.2f} of the fastest)", "≥ 0.85")
        row("authd RSS", f"idle {idle:.0f} MiB, under login load {peak[0]:.0f} MiB (peak {authd.rss_mib('VmHWM'):.0f})",
            "100 MiB", f"{peak[0] / 100:.2f}", "< 1")
        outside = (cpu["authd"] - cpu["hashing"]) * 1000 / result["requests"]
        row("CPU per login outside the hash (authd, 16 connections)",
            f"{outside:.2f} ms (the process {cpu['authd'] * 1000 / result['requests']:.2f} ms, "
            f"its hashing threads {cpu['hashing'] * 1000 / result['requests']:.2f} ms)", "1 ms", f"{outside:.2f}", "≤ 1")

        alone = login_alone(work, authd)
        row("one login alone (1 connection), p50", f"{alone['p50']:.1f} ms{note_errors(alone)}",
            f"the verification alone: {verify_ms:.1f} ms", f"{alone['p50'] - verify_ms:+.1f} ms of other work")

        health_alone = wrk(authd.base + "/health/live", 16)
        quiet = probe(authd.port, seconds=3)
        background = subprocess.Popen(["wrk", "-t1", "-c16", f"-d{DURATION}", "-s", str(script), authd.base + "/login"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)
        loaded = probe(authd.port, seconds=max(1, int(DURATION.rstrip("s")) - 2))
        background.wait()
        row("/health/live p99, probed 100 times a second while 16 connections log in",
            f"{loaded[1]:.2f} ms (p50 {loaded[0]:.2f} ms)", f"goal 5 ms; idle server: p99 {quiet[1]:.2f} ms",
            f"{loaded[1] / 5:.2f}", "< 1")
        me = me_load(authd)
        row("GET /me, 16 connections", f"{me['rps']:.0f} req/s (p99 {me['p99']:.1f} ms){note_errors(me)}",
            f"/health/live, same server: {health_alone['rps']:.0f} req/s", f"{me['rps'] / health_alone['rps']:.2f}", "≥ 0.4")
        rotated = refresh_load(work, authd)
        row("POST /token/refresh, 16 connections", f"{rotated['rps']:.0f} req/s (p99 {rotated['p99']:.1f} ms){note_errors(rotated)}",
            f"/health/live, same server: {health_alone['rps']:.0f} req/s", f"{rotated['rps'] / health_alone['rps']:.2f}", "≥ 0.2")
        alone, rotations = pgbench_rotation(work, cluster, authd)
        row("POST /token/refresh, 16 connections, beside PostgreSQL alone",
            f"{rotated['rps']:.0f} req/s", f"the same rotation statement through pgbench, 16 clients: {alone:.0f}/s ({rotations})",
            f"{rotated['rps'] / alone:.2f}", "≥ 0.8")
        if len(os.sched_getaffinity(0)) >= 2 and shutil.which("taskset"):
            (rate, authd_ms, postgres_ms, waits), (alone, alone_ms, rotations) = refresh_on_separate_cores(work, cluster, authd)
            row("POST /token/refresh, PostgreSQL on one core, authd and wrk on the other",
                f"{rate:.0f} req/s (per refresh: authd {authd_ms:.2f} ms of CPU and {waits:.1f} thread waits, "
                f"PostgreSQL {postgres_ms:.2f} ms)",
                f"pgbench's rotation, PostgreSQL on one core, pgbench on the other: {alone:.0f}/s "
                f"(PostgreSQL {alone_ms:.2f} ms each; {rotations})", f"{rate / alone:.2f}", "≥ 0.8")
    finally:
        authd.stop()


def fastapi_users_peer(work, cluster):
    """fastapi-users (Benchmarks/peers) under the same load, or None when it is not installed:
    two uvicorn workers on the same PostgreSQL, its default Argon2id (m=65536 t=3 p=4)."""
    venv = ROOT / ".build" / "bench-venv" / "bin"
    if not (venv / "uvicorn").exists():
        return None
    environment = {**os.environ, "DATABASE_URL": cluster.url.replace("postgres://", "postgresql+asyncpg://")}
    peers = ROOT / "Benchmarks" / "peers"
    subprocess.run([str(venv / "python"), "fastapi_users_app.py", "add-user", "bench@example.com", PASSWORD],
                   cwd=peers, env=environment, check=True, capture_output=True)
    port = free_port()
    log = open(work / "fastapi-users.log", "w")
    server = subprocess.Popen([str(venv / "uvicorn"), "fastapi_users_app:app", "--workers", "2", "--port", str(port),
                               "--log-level", "warning", "--no-access-log"],
                              cwd=peers, env=environment, stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_http(f"http://127.0.0.1:{port}/health")
        script = lua(work, "login-fastapi-users.lua", """
wrk.method = "POST"
wrk.body = "username=bench%%40example.com&password=%s"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
""" % PASSWORD.replace(" ", "+"))
        return wrk(f"http://127.0.0.1:{port}/auth/jwt/login", 16, script=script)
    finally:
        server.terminate()
        server.wait(20)
        log.close()


def fastapi_parameters(work, cluster):
    options = ["--argon2-memory", "65536", "--argon2-iterations", "3", "--argon2-parallelism", "4"]
    authd = Authd(work, cluster, "authd-fastapi", options)
    try:
        result = wrk(authd.base + "/login", 16, script=login_script(work, authd.add_users("fastapi")))
    finally:
        authd.stop()
    peer = fastapi_users_peer(work, cluster)
    value = f"{result['rps']:.2f} (p50 {result['p50'] / 1000:.2f} s, p99 {result['p99'] / 1000:.2f} s){note_errors(result)}"
    figure = "logins/s at fastapi-users' hash (m=65536 t=3 p=4), 16 connections"
    if peer is None:
        row(figure, value, "fastapi-users: skipped (not installed)", "", "≥ 1.0, p99 ≤ ½")
        return
    row(figure, value,
        f"fastapi-users 15, 2 uvicorn workers, same PostgreSQL: {peer['rps']:.2f} (p50 {peer['p50'] / 1000:.2f} s, "
        f"p99 {peer['p99'] / 1000:.2f} s){note_errors(peer)}",
        f"{result['rps'] / peer['rps']:.2f}, p99 {result['p99'] / peer['p99']:.2f}", "≥ 1.0, p99 ≤ ½")


SLOWLORIS = r"""
import asyncio, sys
port, per_address, addresses, seconds = (int(value) for value in sys.argv[1:5])

async def hold(source):
    # A client that never finishes its request head: a header line every 5 s; when the
    # server cuts it, it connects again at once.
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
            writer.write(b"GET /health/live HTTP/1.1\r\nHost: x\r\n")
            while loop.time() < end:
                await writer.drain()
                await asyncio.sleep(5)
                if reader.at_eof():
                    break
                writer.write(b"X-Slow: 1\r\n")
            writer.close()
        except (OSError, ConnectionError):
            await asyncio.sleep(0.05)

async def main():
    sources = [f"127.0.1.{index + 1}" for index in range(addresses)]
    await asyncio.gather(*(hold(source) for source in sources for _ in range(per_address)))

asyncio.run(main())
"""


def established(port):
    """Connections the server on `port` holds open now (its side of each)."""
    output = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True).stdout
    return len(output.splitlines())


def fresh_connections(port, count=20):
    """The median and the longest wait, in ms, of `count` new connections, one after another,
    for their first answer (GET /health/live, the connection closed after)."""
    waits = []
    for _ in range(count):
        start = time.monotonic()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
                connection.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                connection.recv(12)
        except OSError:
            pass
        waits.append((time.monotonic() - start) * 1000)
    waits.sort()
    return waits[len(waits) // 2], waits[-1]


def slow_clients(work, cluster):
    """Logins/s while slow connections trickle their request heads, against the same
    server's logins/s with nobody else connected: 1,000 from one address (the per-address
    cap admits 100 of them), 1,000 from 20 addresses (50 each, so every slot is wanted), and
    2,000 from 20 (100 each: twice --max-connections, so only closing the slow ones for new
    connections lets the logins in)."""
    authd = Authd(work, cluster, "slow")
    try:
        authd.add_user("bench")
        script = login_script(work, "bench")
        seconds = int(DURATION.rstrip("s"))
        quiet = wrk(authd.base + "/login", 4, script=script)
        quiet_fresh = fresh_connections(authd.port)
        for addresses, per_address in ((1, 1000), (20, 50), (20, 100)):
            attacker = subprocess.Popen([sys.executable, "-c", SLOWLORIS, str(authd.port), str(per_address), str(addresses),
                                         str(seconds + 25)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(15)   # every slow connection open, and the first ones cut and back
            held = established(authd.port)
            loaded = wrk(authd.base + "/login", 4, script=script)
            fresh = fresh_connections(authd.port)
            attacker.kill()
            attacker.wait()
            time.sleep(12)   # the server closes what is left
            row(f"logins/s, 4 connections, while {addresses * per_address:,} slow connections come from {addresses} address{'es' if addresses > 1 else ''} "
                f"({held} held by the server)",
                f"{loaded['rps']:.1f} (p99 {loaded['p99']:.0f} ms){note_errors(loaded)}",
                f"no slow clients, same server: {quiet['rps']:.1f}", f"{loaded['rps'] / quiet['rps']:.2f}", "≥ 0.8")
            row(f"a new connection's first answer meanwhile, 20 in turn: median, longest",
                f"{fresh[0]:.1f} ms, {fresh[1]:.1f} ms", f"no slow clients: {quiet_fresh[0]:.1f} ms, {quiet_fresh[1]:.1f} ms", "",
                "longest ≤ 1 s")
    finally:
        authd.stop()


ATTACK = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
counter = 0
request = function()
    counter = counter + 1
    local address = string.format("10.%%d.%%d.%%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
    wrk.headers["X-Forwarded-For"] = address
    if counter %% 10 == 0 then
        return wrk.format(nil, "/login", nil, '{"username": "bench", "password": "%s"}')
    end
    return wrk.format(nil, "/login", nil, '{"username": "u' .. math.random(1, 1000000) .. '", "password": "a guess"}')
end
"""


def table_sizes(cluster):
    query = ("SELECT (SELECT count(*) FROM audit_events), (SELECT count(*) FROM login_failures), "
             "(SELECT count(*) FROM refresh_tokens) + (SELECT count(*) FROM refresh_families), "
             "pg_total_relation_size('audit_events') + pg_total_relation_size('login_failures') "
             "+ pg_total_relation_size('refresh_tokens') + pg_total_relation_size('refresh_families')")
    audit, counters, sessions, size = (int(value) for value in cluster.sql(query).split())
    return {"audit_events": audit, "login_failures": counters, "sessions": sessions, "bytes": size}


def attack(work, cluster):
    """ATTACK_MINUTES (10) of guessing from random addresses, one login in ten right,
    against authd keeping audit events, counters and ended sessions for 60 s (sessions
    last 30 s): each table's rows at the end against the half-way mark (1.0 levelled
    off; 2.0 is what growth without retention gives)."""
    minutes = float(os.environ.get("ATTACK_MINUTES", "10"))
    authd = Authd(work, cluster, "attack", serve_options=[
        "--trusted-proxy", "127.0.0.1", "--audit-retention", "60", "--counter-retention", "60",
        "--session-retention", "60", "--retention-interval", "5", "--refresh-token-ttl", "30", "--session-max-age", "30",
    ])
    try:
        authd.add_user("bench")
        script = lua(work, "attack.lua", ATTACK % PASSWORD)
        samples = []
        stop = threading.Event()

        def sample():
            start = time.monotonic()
            while not stop.wait(30):
                samples.append((time.monotonic() - start, table_sizes(cluster)))

        sampler = threading.Thread(target=sample)
        sampler.start()
        result = wrk(authd.base + "/login", 8, script=script, duration=f"{int(minutes * 60)}s")
        stop.set()
        sampler.join()
        half = min(samples, key=lambda sample: abs(sample[0] - minutes * 30))
        end = samples[-1]
        print("  table sizes every 30 s: " + "; ".join(
            f"{at / 60:.1f} min {s['audit_events']}/{s['login_failures']}/{s['sessions']}" for at, s in samples), file=sys.stderr)
        row(f"attack for {minutes:g} min (wrong passwords from random addresses, 1 in 10 right)",
            f"{result['rps']:.1f} logins/s ({result['errors']} answered other than 200: the wrong passwords, nine in ten)")
        for table in ("audit_events", "login_failures", "sessions"):
            row(f"{table} rows under attack, at {half[0] / 60:.1f} and {end[0] / 60:.1f} min",
                f"{half[1][table]} → {end[1][table]}", "growth without retention: 2.0",
                f"{end[1][table] / max(half[1][table], 1):.2f}", "≤ 1.1")
        row(f"those tables on disk, at {half[0] / 60:.1f} and {end[0] / 60:.1f} min",
            f"{half[1]['bytes'] / 2**20:.1f} → {end[1]['bytes'] / 2**20:.1f} MiB", "growth without retention: 2.0",
            f"{end[1]['bytes'] / max(half[1]['bytes'], 1):.2f}", "≤ 1.1")
    finally:
        authd.stop()


SCALE = float(os.environ.get("SCALE", "1.0"))

# The scale section's data, one INSERT … SELECT per table: (table, column: expression, FROM
# …). Columns the schema of the authd under test lacks (a build from before their
# migration) are left out. Every row lies inside serve's default retention (audit events
# 90 days, sessions 7 days after they end), so no retention run deletes any while the
# figures are measured. Generated accounts never log in: their password hash is bench's.
SCALE_LOAD = (
    ("users", {
        "id": "md5('user' || i)::uuid", "username": "'user' || i", "username_key": "'user' || i",
        "password_hash": "bench.password_hash", "created_at": "now() - random() * interval '3 years'",
        "email": "'user' || i || '@example.com'", "email_key": "'user' || i || '@example.com'",
    }, "generate_series(1, {users}) AS i, (SELECT password_hash FROM users WHERE username_key = 'bench') AS bench"),
    # A few accounts have most of the events (u = users × random²: the first 1 % of them
    # get a tenth); every 2,000th event is bench's. Times are spread over 89 days, so
    # bench's events lie between everybody else's in every index.
    ("audit_events", {
        "at": "now() - random() * interval '89 days'",
        "kind": "(ARRAY['login_succeeded', 'login_succeeded', 'login_succeeded', 'token_refreshed', 'token_refreshed', "
                "'token_refreshed', 'token_refreshed', 'login_failed', 'logged_out', 'password_set'])[1 + i % 10]",
        "user_id": "CASE WHEN i % 2000 = 0 THEN bench.id ELSE md5('user' || u)::uuid END",
        "username_key": "CASE WHEN i % 2000 = 0 THEN 'bench' ELSE 'user' || u END",
        "client_address": "'10.' || u % 256 || '.' || u / 256 % 256 || '.' || 1 + i % 250",
        "request_id": "md5('request' || i)",
    }, "(SELECT i, 1 + floor(random() ^ 2 * {users})::bigint AS u FROM generate_series(1, {audit}) AS i) AS events, "
       "(SELECT id FROM users WHERE username_key = 'bench') AS bench"),
    # One session per five refresh tokens, of a random account, begun in the last 25 days;
    # one in ten revoked, in the last 6 days.
    ("refresh_families", {
        "id": "md5('family' || j)::uuid", "user_id": "md5('user' || u)::uuid", "created_at": "began",
        "expires_at": "began + interval '90 days'",
        "revoked_at": "CASE WHEN j % 10 = 0 THEN greatest(began, now() - random() * interval '6 days') END",
        "last_used_at": "least(now(), began + interval '4 hours')",
        "client_address": "'10.' || u % 256 || '.' || u / 256 % 256 || '.1'",
        "user_agent": "'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0'",
    }, "(SELECT j, 1 + floor(random() * {users})::bigint AS u, now() - random() * interval '25 days' AS began "
       "FROM generate_series(1, {families}) AS j) AS sessions"),
    # Each generated session's five tokens, rotated hourly: four used, the newest not.
    ("refresh_tokens", {
        "token_hash": "encode(sha256(convert_to(f.id::text || k, 'UTF8')), 'hex')", "family_id": "f.id",
        "user_id": "f.user_id", "expires_at": "f.created_at + k * interval '1 hour' + interval '30 days'",
        "created_at": "f.created_at + k * interval '1 hour'",
        "used_at": "CASE WHEN k < 4 THEN f.created_at + (k + 1) * interval '1 hour' END", "revoked_at": "f.revoked_at",
    }, "refresh_families f CROSS JOIN generate_series(0, 4) AS k "
       "WHERE f.user_id <> (SELECT id FROM users WHERE username_key = 'bench')"),
)


def load_statement(cluster, table, expressions, source, counts):
    present = set(cluster.sql(f"SELECT column_name FROM information_schema.columns WHERE table_name = '{table}'").split())
    chosen = [column for column in expressions if column in present]
    return (f"INSERT INTO {table} ({', '.join(chosen)}) SELECT {', '.join(expressions[column] for column in chosen)} "
            f"FROM {source.format(**counts)}")


def audit_ms(authd, user="bench", runs=5):
    """Median wall time of `authd audit --user USER` (the CLI, start to exit), in ms. It runs
    the server's own executable, so a build that replaces .build/release meanwhile changes
    neither side of the comparison."""
    times = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run([f"/proc/{authd.process.pid}/exe", "audit", "--user", user, "--log-level", "warning", *authd.database],
                       check=True, capture_output=True)
        times.append((time.monotonic() - start) * 1000)
    return statistics.median(times)


SCALE_FIGURES = (("login p50, 1 connection", "ms"), ("GET /me, 16 connections", "req/s"),
                 ("POST /token/refresh, 16 connections", "req/s"), ("`authd audit --user bench`, median of 5", "ms"))


def scale_figures(work, authd, label):
    values = (login_alone(work, authd)["p50"], me_load(authd)["rps"], refresh_load(work, authd)["rps"], audit_ms(authd))
    figures = {name: value for (name, _), value in zip(SCALE_FIGURES, values)}
    print(f"  {label}: " + "; ".join(f"{name}: {value:.1f}" for name, value in figures.items()), file=sys.stderr)
    return figures


def millions(count):
    return f"{count / 1e6:g}M" if count >= 1e6 else f"{count / 1e3:g}k"


SCALE_ROUNDS = 3


def scale(work):
    """How authd's cost grows with its tables: login p50 alone, GET /me and token refresh on
    16 connections, and `authd audit --user` (median of 5 runs) after SQL loads 1M accounts,
    10M audit events and 5M refresh tokens in 1M sessions (SCALE multiplies the counts) and
    VACUUM ANALYZE, against the same figures on an empty database of the same cluster,
    served by a second authd. The two are measured in turn, SCALE_ROUNDS times each (the
    order alternating), and each figure is the median of its rounds: one Argon2id
    verification alone moves by a tenth within minutes on a shared machine, so an empty
    database measured before the load, minutes earlier, could not tell a 10 % change from
    the machine's. Both authd processes start before the load and keep their connections
    and prepared statements throughout. On a cluster of its own, removed after. Not in the
    default run: on 2 cores the load takes 6–8 minutes (5 GiB) and the section 10–12."""
    counts = {"users": round(1_000_000 * SCALE), "audit": round(10_000_000 * SCALE),
              "families": round(1_000_000 * SCALE)}
    # Sized as a server holding 5 GB is: shared_buffers 1 GB (a fifth of the data, a quarter
    # of a small server's memory), not the 128 MB default that holds no index of 5M rows.
    # The empty database shares the setting, and the cluster.
    cluster = Cluster(work, "pg-scale", settings=("shared_buffers=1GB",))
    servers = []
    try:
        cluster.sql("CREATE DATABASE empty")
        loaded = Authd(work, cluster, "scale")
        servers.append(loaded)
        empty = Authd(work, cluster, "scale-empty", database="empty")
        servers.append(empty)
        for server in servers:
            server.add_user("bench")
        start = time.monotonic()
        for table, expressions, source in SCALE_LOAD:
            began = time.monotonic()
            cluster.sql(load_statement(cluster, table, expressions, source, counts))
            print(f"  loaded {table} in {time.monotonic() - began:.0f} s", file=sys.stderr)
        # VACUUM as well as ANALYZE: a real database's old rows were vacuumed long ago, and
        # without it autovacuum's first pass over 16M new rows, and the checkpoint after the
        # load, would run during the measurements.
        cluster.sql("VACUUM ANALYZE")
        cluster.sql("CHECKPOINT")
        load = time.monotonic() - start
        size = int(cluster.sql("SELECT pg_database_size(current_database())"))
        counted = cluster.sql("SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM audit_events), "
                              "(SELECT count(*) FROM refresh_families), (SELECT count(*) FROM refresh_tokens)").split()
        print(f"  loaded and analysed in {load:.0f} s: users / audit_events / refresh_families / refresh_tokens "
              f"{' / '.join(counted)}, {size / 2**30:.2f} GiB", file=sys.stderr)
        rounds = {"empty": [], "loaded": []}
        for index in range(SCALE_ROUNDS):
            order = (("empty", empty), ("loaded", loaded))
            for side, server in (order if index % 2 == 0 else reversed(order)):
                rounds[side].append(scale_figures(work, server, f"round {index + 1}, {side}"))
    finally:
        for server in servers:
            server.stop()
        cluster.stop()
        shutil.rmtree(cluster.dir, ignore_errors=True)
    tables = (f"{millions(counts['users'])} users / {millions(counts['audit'])} audit / "
              f"{millions(counts['families'] * 5)} refresh tokens")
    row(f"scale: data load, SQL then VACUUM ANALYZE ({tables})", f"{load:.0f} s; database {size / 2**30:.2f} GiB")
    for name, unit in SCALE_FIGURES:
        places = 1 if unit == "ms" else 0
        at = {side: statistics.median(figures[name] for figures in rounds[side]) for side in rounds}
        spread = {side: f"{min(f[name] for f in rounds[side]):.{places}f}–{max(f[name] for f in rounds[side]):.{places}f}"
                  for side in rounds}
        # A time may grow and a rate may fall by 10 %: loaded ÷ empty for times, empty ÷ loaded for rates.
        ratio = at["loaded"] / at["empty"] if unit == "ms" else at["empty"] / at["loaded"]
        row(f"{name} at {tables}, median of {SCALE_ROUNDS} rounds",
            f"{at['loaded']:.{places}f} {unit} (rounds {spread['loaded']})",
            f"empty database, same cluster, in turn: {at['empty']:.{places}f} {unit} (rounds {spread['empty']})",
            f"{ratio:.2f}", "≤ 1.10")


NGINX = """
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{
    worker_connections 1024;
}}
http {{
    access_log off;
    client_body_temp_path {folder}/client_body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream authd {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location / {{
            proxy_pass http://authd;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }}
    }}
}}
"""


def nginx_in_front(work, instances):
    """nginx on a free port, balancing over `instances` (round robin, kept-alive upstream
    connections), in a folder of its own: config, pid, logs and temporary files.
    One worker process, not auto: nginx takes about 0.1 ms of CPU per login, so one worker
    is idle most of the time, and a second would only compete for the cores with the authd
    it fronts."""
    folder = work / "nginx"
    folder.mkdir()
    port = free_port()
    servers = "\n".join(f"        server 127.0.0.1:{authd.port};" for authd in instances)
    conf = folder / "nginx.conf"
    conf.write_text(NGINX.format(folder=folder, servers=servers, port=port))
    proxy = Service([shutil.which("nginx"), "-p", str(folder), "-e", str(folder / "error.log"), "-c", str(conf),
                     "-g", "daemon off;"], work / "nginx.log")
    proxy.base = f"http://127.0.0.1:{port}"
    wait_http(proxy.base + "/health/ready")
    return proxy


def ms_per(seconds, result):
    return seconds * 1000 / result["requests"]


def instances(work, cluster):
    """Two authd behind nginx on one PostgreSQL (both migrate it; one database): logins/s on
    16 connections through nginx against one authd direct, and the CPU a login costs in
    authd, PostgreSQL (the postmaster and its children) and nginx, from /proc over each run."""
    figure = "logins/s, 16 connections, through nginx to two authd on one PostgreSQL"
    if not shutil.which("nginx"):
        row(figure, "skipped (nginx is not installed)")
        return
    services = [Authd(work, cluster, "instance-1")]
    try:
        services.append(Authd(work, cluster, "instance-2"))
        first, second = services
        proxy = nginx_in_front(work, [first, second])
        services.append(proxy)
        script = login_script(work, first.add_users("instances"))
        postmaster = cluster.postmaster()

        def postgres():
            return tree_cpu(postmaster)

        both, both_cpu = cpu_used(lambda: wrk(proxy.base + "/login", 16, script=script), {
            "authd": lambda: tree_cpu(first.process.pid) + tree_cpu(second.process.pid),
            "postgres": postgres, "nginx": lambda: tree_cpu(proxy.process.pid)})
        alone, alone_cpu = cpu_used(lambda: wrk(first.base + "/login", 16, script=script), {
            "authd": lambda: tree_cpu(first.process.pid), "postgres": postgres})
    finally:
        for service in reversed(services):
            service.stop()
    row(figure, f"{both['rps']:.1f} (p50 {both['p50']:.0f} ms, p99 {both['p99']:.0f} ms){note_errors(both)}",
        f"one authd direct, same PostgreSQL: {alone['rps']:.1f} (p99 {alone['p99']:.0f} ms){note_errors(alone)}",
        f"{both['rps'] / alone['rps']:.2f}", "≥ 0.9")
    authd_ms, postgres_ms = ms_per(both_cpu["authd"], both), ms_per(both_cpu["postgres"], both)
    row("PostgreSQL CPU per login, two authd through nginx", f"{postgres_ms:.2f} ms",
        f"one authd direct: {ms_per(alone_cpu['postgres'], alone):.2f} ms",
        f"{postgres_ms / ms_per(alone_cpu['postgres'], alone):.2f}")
    row("authd CPU per login, two authd through nginx", f"{authd_ms:.2f} ms (nginx: {ms_per(both_cpu['nginx'], both):.2f} ms)",
        f"one authd direct: {ms_per(alone_cpu['authd'], alone):.2f} ms", f"{authd_ms / ms_per(alone_cpu['authd'], alone):.2f}")
    # Both instances and PostgreSQL share the machine's cores here, and a login's Argon2id
    # hash takes most of them, so the login rate is bounded by the hash, not by PostgreSQL:
    # adding an instance cannot raise it. How many instances one PostgreSQL core would carry
    # (each instance on cores of its own) follows from the CPU a login costs on either side:
    # an instance with a core to itself does 1 / authd_ms logins per ms, which take
    # postgres_ms each of PostgreSQL's core.
    row("authd instances one PostgreSQL core carries", f"{authd_ms / postgres_ms:.1f}",
        "authd CPU per login ÷ PostgreSQL CPU per login")


def oauth(work, cluster):
    """POST /oauth/token with client_credentials and POST /oauth/introspect (a user's access
    token, asked by a trusted introspector) on 16 connections, each beside /health/live on the
    same server; Ory Hydra's published figures on 2 CPUs (513 grants/s, 5,109 introspections/s,
    other hardware) are for orientation only."""
    authd = Authd(work, cluster, "oauth")
    try:
        authd.add_user("bench")
        authd.add_client("bench-service")
        authd.add_client("bench-gateway", "--trusted-introspector")
        access = authd.login("bench")["access_token"]
        health = wrk(authd.base + "/health/live", 16)
        for label, path, script, hydra in (
                ("POST /oauth/token, client_credentials", "/oauth/token",
                 form_script(work, "grant.lua", "bench-service", "grant_type=client_credentials"), "513 grants/s"),
                ("POST /oauth/introspect, a user's access token", "/oauth/introspect",
                 form_script(work, "introspect.lua", "bench-gateway", f"token={access}"), "5,109 introspections/s")):
            result = wrk(authd.base + path, 16, script=script)
            row(f"{label}, 16 connections", f"{result['rps']:,.0f} req/s (p99 {result['p99']:.1f} ms){note_errors(result)}",
                f"/health/live, same server: {health['rps']:,.0f} req/s (Ory Hydra, published, 2 CPUs: {hydra})",
                f"{result['rps'] / health['rps']:.2f}")
    finally:
        authd.stop()


# --- OpenID Connect: the code flow through a browser session --------------------------

REDIRECT_URI = "http://127.0.0.1:9/callback"
CODE_VERIFIER = "v" * 64  # PKCE (RFC 7636): one verifier for every request; each code is new


def authorize_path(client):
    challenge = base64.urlsafe_b64encode(hashlib.sha256(CODE_VERIFIER.encode()).digest()).rstrip(b"=").decode()
    return "/authorize?" + urllib.parse.urlencode({
        "response_type": "code", "client_id": client, "redirect_uri": REDIRECT_URI, "scope": "openid profile",
        "state": "bench", "nonce": "bench", "code_challenge": challenge, "code_challenge_method": "S256"})


def browser_session(authd, client, user="bench"):
    """Signs `user` in on authd's sign-in page, as a browser would (its anti-forgery token,
    Origin and Sec-Fetch-Site), and returns the session cookie (`name=value`) that later
    authorization requests carry."""
    import html
    import http.client
    connection = http.client.HTTPConnection("127.0.0.1", authd.port, timeout=30)
    cookie, path, method, body = None, authorize_path(client), "GET", None
    for _ in range(10):
        headers = {"Cookie": cookie} if cookie else {}
        if method == "POST":
            headers.update({"Origin": authd.base, "Sec-Fetch-Site": "same-origin",
                            "Content-Type": "application/x-www-form-urlencoded"})
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("__Host-authd_browser="):
                cookie = value.split(";")[0]
        location = response.getheader("Location") or ""
        if location.startswith(REDIRECT_URI):
            if "code=" not in location or not cookie:
                raise RuntimeError(f"authd sent the browser back without a code or a session: {location}")
            return cookie
        if response.status in (302, 303):
            path, method, body = location.removeprefix(authd.base), "GET", None
        elif response.status == 200 and 'id="sign-in"' in text:
            action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', text).group(1))
            csrf = re.search(r'name="csrf" value="([^"]+)"', text).group(1)
            path, method = action, "POST"
            body = urllib.parse.urlencode({"csrf": csrf, "username": user, "password": PASSWORD})
        else:
            raise RuntimeError(f"the sign-in page answered {response.status}: {text[:300]}")
    raise RuntimeError("the sign-in did not end at the app")


def code_flow_script(work, client, cookie):
    """A wrk script (one thread) for the whole code flow: GET /authorize with the browser's
    session (a 303 to the app with a code, no password), then that code exchanged at POST
    /oauth/token (HTTP Basic, PKCE) for tokens with an ID token; each connection takes the
    next code any answer gave, and done() prints how many exchanges gave an ID token."""
    basic = base64.b64encode(f"{client}:{CLIENT_SECRET}".encode()).decode()
    exchange = urllib.parse.urlencode({"grant_type": "authorization_code", "redirect_uri": REDIRECT_URI,
                                       "code_verifier": CODE_VERIFIER})
    return lua(work, f"code-flow-{client}.lua", f"""
local threads = {{}}
function setup(thread) table.insert(threads, thread) end
codes, exchanged = {{}}, 0
request = function()
    local code = table.remove(codes)
    if code then
        return wrk.format("POST", "/oauth/token", {{["Content-Type"] = "application/x-www-form-urlencoded",
            ["Authorization"] = "Basic {basic}"}}, "{exchange}&code=" .. code)
    end
    return wrk.format("GET", "{authorize_path(client)}", {{["Cookie"] = "{cookie}"}})
end
response = function(status, headers, body)
    for name, value in pairs(headers) do
        if string.lower(name) == "location" then
            local code = value:match("[?&]code=([^&]+)")
            if code then table.insert(codes, code) end
        end
    end
    if status == 200 and body:find('"id_token"', 1, true) then exchanged = exchanged + 1 end
end
function done(summary, latency, requests)
    local total = 0
    for _, thread in ipairs(threads) do total = total + thread:get("exchanged") end
    io.write("exchanged " .. total .. "\\n")
end
""")


def oidc(work, cluster):
    """The OpenID Connect code flow on 16 connections, beside refresh on the same server in
    the same run: a sign-in through the browser session alone (GET /authorize answering a
    303 with a code, no password), and the whole flow (that, then the code's exchange for
    tokens with an ID token), once per ID-token algorithm (a first-party client each), with
    authd's CPU per exchange so an operator can choose the algorithm."""
    authd = Authd(work, cluster, "oidc")
    try:
        authd.add_user("bench")
        algorithms = ("RS256", "ES256", "EdDSA")
        for algorithm in algorithms:
            authd.add_client(f"bench-{algorithm.lower()}", "--first-party", "--redirect-uri", REDIRECT_URI,
                             "--id-token-alg", algorithm)
        cookie = browser_session(authd, "bench-rs256")
        rotated = refresh_load(work, authd)
        beside = f"POST /token/refresh, same server: {rotated['rps']:,.0f} req/s"
        signed_in = wrk(authd.base + authorize_path("bench-rs256"), 16, headers=[f"Cookie: {cookie}"])
        row("GET /authorize with a browser session (a code, no password), 16 connections",
            f"{signed_in['rps']:,.0f} req/s (p99 {signed_in['p99']:.1f} ms){note_errors(signed_in)}", beside,
            f"{signed_in['rps'] / rotated['rps']:.2f}")
        pid = authd.process.pid
        per_flow = {}
        for algorithm in algorithms:
            client = f"bench-{algorithm.lower()}"
            script = code_flow_script(work, client, cookie)
            result, cpu = cpu_used(lambda: wrk(authd.base + "/authorize", 16, threads=1, script=script), {"authd": lambda: tree_cpu(pid)})
            exchanged = int(re.search(r"^exchanged (\d+)$", result["output"], re.M).group(1))
            seconds = result["requests"] / result["rps"]
            per_flow[algorithm] = cpu["authd"] * 1000 / max(exchanged, 1)
            row(f"the code flow, ID token {algorithm}: /authorize then POST /oauth/token, 16 connections",
                f"{exchanged / seconds:,.0f} exchanges/s ({per_flow[algorithm]:.2f} ms of authd CPU each, "
                f"both requests){note_errors(result)}", beside, f"{exchanged / seconds / rotated['rps']:.2f}")
        signing = subprocess.run([str(RELEASE / "SigningBenchmark")], check=True, capture_output=True, text=True).stdout
        costs = {name: float(value) for name, value in re.findall(r"^(\S+) ([\d.]+) µs$", signing, re.M)}
        for algorithm in algorithms:
            cost = costs[f"id_token_us.{algorithm}"]
            row(f"one ID token signed with {algorithm}, one thread, median", f"{cost:,.0f} µs",
                f"the code flow's authd CPU with {algorithm} ID tokens: {per_flow[algorithm]:.2f} ms",
                f"{cost / 1000 / per_flow[algorithm]:.2f}")
    finally:
        authd.stop()


def replicas(work):
    """GET /sessions, GET /userinfo and POST /oauth/introspect (an access token, by a trusted
    introspector) on 16 connections: an authd whose reads of them go to a streaming replica
    (--database-read-url) against one on the primary alone, the same pair of clusters, in turn;
    and the primary's CPU per request (its postmaster and children, from /proc) in each. Both
    clusters share this machine's cores, so the requests/s say what the replica costs here, and
    the primary's CPU what it takes off the primary when the replica has cores of its own."""
    sys.path.insert(0, str(ROOT / "Examples" / "PythonRelyingParty"))
    from authd_pages import Browser
    primary = Cluster(work, "replica-primary")
    standby, services = None, []
    try:
        standby = Standby(work, primary)
        alone = Authd(work, primary, "primary-alone")
        services.append(alone)
        alone.add_user("bench")
        alone.add_client("bench-app", "--public", "--first-party", "--redirect-uri", "http://127.0.0.1/cb")
        alone.add_client("bench-gateway", "--trusted-introspector")
        replicated = Authd(work, primary, "with-replica", serve_options=["--database-read-url", standby.url_of("postgres")])
        services.append(replicated)
        access = alone.login("bench")["access_token"]
        # An access token of the openid scope, through the authorization code flow with PKCE.
        verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        redirect = "http://127.0.0.1:9/cb"
        query = urllib.parse.urlencode({"response_type": "code", "client_id": "bench-app", "scope": "openid profile",
                                        "redirect_uri": redirect, "state": "s", "code_challenge": challenge,
                                        "code_challenge_method": "S256"})
        back = Browser(alone.base, "bench", PASSWORD, redirect).sign_in(f"{alone.base}/authorize?{query}")
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(back).query)["code"][0]
        form = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "client_id": "bench-app",
                                       "redirect_uri": redirect, "code_verifier": verifier}).encode()
        with urllib.request.urlopen(urllib.request.Request(alone.base + "/oauth/token", data=form), timeout=30) as answer:
            oidc = json.loads(answer.read())["access_token"]
        introspect = form_script(work, "introspect.lua", "bench-gateway", f"token={access}")
        routes = [("GET /sessions", "/sessions", [f"Authorization: Bearer {access}"], None),
                  ("GET /userinfo", "/userinfo", [f"Authorization: Bearer {oidc}"], None),
                  ("POST /oauth/introspect", "/oauth/introspect", [], introspect)]
        postmaster = primary.postmaster()
        for label, path, headers, script in routes:
            measured = {}
            for name, authd in (("replica", replicated), ("alone", alone)):
                measured[name] = cpu_used(lambda: wrk(authd.base + path, 16, script=script, headers=headers),
                                          {"primary": lambda: tree_cpu(postmaster)})
            (with_replica, with_cpu), (on_primary, alone_cpu) = measured["replica"], measured["alone"]
            row(f"{label} req/s, 16 connections, reads on a streaming replica (same machine)",
                f"{with_replica['rps']:,.0f} (p99 {with_replica['p99']:.1f} ms){note_errors(with_replica)}",
                f"primary alone: {on_primary['rps']:,.0f} (p99 {on_primary['p99']:.1f} ms){note_errors(on_primary)}",
                f"{with_replica['rps'] / on_primary['rps']:.2f}")
            row(f"{label}: the primary's CPU per request, reads on a streaming replica",
                f"{ms_per(with_cpu['primary'], with_replica):.3f} ms",
                f"primary alone: {ms_per(alone_cpu['primary'], on_primary):.3f} ms",
                f"{ms_per(with_cpu['primary'], with_replica) / ms_per(alone_cpu['primary'], on_primary):.2f}")
    finally:
        for service in reversed(services):
            service.stop()
        if standby:
            standby.stop()
        primary.stop()


def contract_verify():
    output = subprocess.run([str(RELEASE / "ContractRunnerBenchmark"), "1000"], check=True, capture_output=True, text=True).stdout
    rates = dict(re.findall(r"^(.*?): \d+ interactions, median (\d+) interactions/s", output, re.M))
    http, direct = float(rates["loopback HTTP (Hummingbird)"]), float(rates["in-process responder"])
    row("contract verify, 1,000 interactions, trivial provider over loopback", f"{http:.0f} interactions/s",
        f"the same verification in process: {direct:.0f} interactions/s", f"{http / direct:.2f}")


def items_yaml(size):
    lines = ["name: Items", "interactions:"]
    for index in range(size):
        lines += [f"  - name: item {index}", f"    request: {{ method: GET, path: /items/{index} }}",
                  "    response:", "      status: 200", f"      json: {{ id: {index}, name: item }}"]
    return "\n".join(lines) + "\n"


def logins_yaml(size):
    """`size` login interactions, each for its own user, whose 200 holds a signed `jwt` the
    stub mints, as authd's own contract does; the benchmark logs in as the last one."""
    lines = ["name: Logins", "interactions:"]
    for index in range(size):
        lines += [f"  - name: user {index} logs in",
                  "    request:", "      method: POST", "      path: /login",
                  f'      json: {{ username: user{index}, password: "correct horse battery staple" }}',
                  "    response:", "      status: 200", "      json:",
                  "        access_token: { match: jwt }", "        token_type: Bearer",
                  "        expires_in: { match: integer, min: 1, example: 900 }",
                  "        refresh_token: { match: string, min_length: 43, max_length: 43 }"]
    return "\n".join(lines) + "\n"


def wiremock_logins(size):
    """WireMock's mappings for the same logins: the body matched as JSON, a fixed answer."""
    token = "eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyIn0." + "A" * 86
    return {"mappings": [
        {"request": {"method": "POST", "url": "/login",
                     "bodyPatterns": [{"equalToJson": {"username": f"user{index}", "password": "correct horse battery staple"}}]},
         "response": {"status": 200, "jsonBody": {"access_token": token, "token_type": "Bearer", "expires_in": 900,
                                                  "refresh_token": "R" * 43}}} for index in range(size)]}


def wiremock_jar():
    venv = ROOT / ".build" / "bench-venv"
    jars = sorted(venv.glob("lib/python*/site-packages/wiremock/server/wiremock-standalone-*.jar"))
    return jars[-1] if jars and shutil.which("java") else None


def stub_servers(work):
    """`contract stub` against WireMock on the same routes: GET /items/N with fixed JSON, and
    POST /login whose answer holds a token the stub signs (WireMock's is fixed text)."""
    jar = wiremock_jar()
    stub_rates = {}
    body = json.dumps({"username": "user{}", "password": "correct horse battery staple"})
    kinds = [("items", (10, 200, 1000), items_yaml, lambda size: {"mappings": [
                  {"request": {"method": "GET", "url": f"/items/{index}"},
                   "response": {"status": 200, "jsonBody": {"id": index, "name": "item"}}} for index in range(size)]},
              lambda size: (f"/items/{size - 1}", None)),
             ("logins", (10, 200, 1000), logins_yaml, wiremock_logins,
              lambda size: ("/login", lua(work, f"login-{size}.lua",
                                          'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                                          f"wrk.body = '{body.replace('{}', str(size - 1))}'\n")))]
    for kind, sizes, contract_yaml, mappings, target in kinds:
        for size in sizes:
            path, script = target(size)
            folder = work / f"{kind}-{size}"
            folder.mkdir()
            (folder / f"{kind}.yaml").write_text(contract_yaml(size))
            port = free_port()
            stub = Service([str(RELEASE / "contract"), "stub", str(folder), "--port", str(port)], work / f"stub-{kind}-{size}.log")
            try:
                wait_http(f"http://127.0.0.1:{port}{path}")
                url = f"http://127.0.0.1:{port}{path}"
                wrk(url, 16, duration="2s", script=script)
                stub_rates[(kind, size)] = wrk(url, 16, script=script)
            finally:
                stub.stop()
            peer = "WireMock: skipped (needs java and the wiremock package)"
            ratio = ""
            if jar:
                root = work / f"wiremock-{kind}-{size}"
                (root / "mappings").mkdir(parents=True)
                (root / "mappings" / f"{kind}.json").write_text(json.dumps(mappings(size)))
                port = free_port()
                wiremock = Service(["java", "-jar", str(jar), "--port", str(port), "--root-dir", str(root),
                                    "--no-request-journal", "--disable-banner"], work / f"wiremock-{kind}-{size}.log")
                try:
                    wait_http(f"http://127.0.0.1:{port}/__admin/mappings", timeout=120)
                    url = f"http://127.0.0.1:{port}{path}"
                    wrk(url, 16, duration="5s", script=script)  # the JIT warms up
                    theirs = wrk(url, 16, script=script)
                    peer = f"WireMock {jar.stem.split('-')[-1]}: {theirs['rps']:.0f} req/s{note_errors(theirs)}"
                    ratio = f"{stub_rates[(kind, size)]['rps'] / theirs['rps']:.2f}"
                finally:
                    wiremock.stop()
            mine = stub_rates[(kind, size)]
            what = "GET /items/N" if kind == "items" else "POST /login minting a signed token"
            row(f"`contract stub` req/s, {what}, {size} interactions", f"{mine['rps']:.0f} (p99 {mine['p99']:.1f} ms){note_errors(mine)}",
                peer, ratio, "≥ 1")
    flat = stub_rates[("items", 1000)]["rps"] / stub_rates[("items", 10)]["rps"]
    row("`contract stub` flatness, 1,000 vs 10 interactions", f"{flat:.2f}", "within 20 %", "", "≥ 0.8")


def stub_library():
    output = subprocess.run([str(RELEASE / "ContractStubBenchmark"), "5000"], check=True, capture_output=True, text=True).stdout
    medians = {label: float(value) for label, value in re.findall(r"^(.*?): median ([\d.]+) µs", output, re.M)}
    sizes = [medians[f"stub.respond with {size} interactions"] for size in (10, 200, 1000)]
    row("in-process stub, median, 10 / 200 / 1,000 interactions", " / ".join(f"{value:.1f} µs" for value in sizes),
        "10 interactions", f"{sizes[2] / sizes[0]:.2f}", "≤ 1.2")
    row("stub login round trip in process (no adapter), median", f"{medians['stub.respond (no adapter)']:.0f} µs")
    adapter, floor = medians["URLProtocol adapter"], medians["URLSession with an empty URLProtocol (the platform's floor)"]
    canned = medians["URLSession with a URLProtocol giving the login's answer, made once"]
    direct = medians["stub.respond (no adapter)"]
    row("stub login through URLProtocol, median", f"{adapter:.0f} µs (the adapter's own share: {adapter - canned - direct:.0f} µs)",
        f"URLSession with an empty URLProtocol: {floor:.0f} µs", f"+{(adapter / floor - 1) * 100:.0f} %", "≤ +25 %")
    # The bound: URLSession handing over the login's answer (made once) plus the stub's own
    # work, with no adapter at all; above +25 % while the stub's login costs what it does.
    row("URLProtocol's bound: the login's answer made once, plus the stub's work", f"{canned:.0f} + {direct:.0f} µs",
        f"URLSession with an empty URLProtocol: {floor:.0f} µs", f"+{((canned + direct) / floor - 1) * 100:.0f} %", "≤ +25 %")
    # What no stub minting a signed token can skip: the platform's handling of the answer and
    # one Ed25519 signature. Under +25 %, this row says the platform does not rule the target out.
    signature = medians["one Ed25519 signature"]
    row("URLProtocol's floor for a signed login: the login's answer made once, plus one Ed25519 signature",
        f"{canned:.0f} + {signature:.0f} µs", f"URLSession with an empty URLProtocol: {floor:.0f} µs",
        f"+{((canned + signature) / floor - 1) * 100:.0f} %", "≤ +25 %")
    server = re.search(r"local server: ([\d.]+) requests/s", output)
    row("stub login through the local server, median", f"{medians['local server (URLSession client)']:.0f} µs"
        + (f" ({server.group(1)} req/s, 8 clients)" if server else ""))


CI_LIMIT = 600  # seconds: the contributor loop's limit for a fresh clone's .ci/run


def ci_run(work):
    """The contributor loop: `CI=true bash .ci/run` on a fresh clone of this repository's
    committed HEAD (so a change not yet committed is not in it), from `git clone` to its
    exit, with the end of each step as `.ci/run` and `scripts/test` print it. Swift packages
    come from SwiftPM's shared cache and the Python tools from scripts/python-venv's, as
    any second clone on the machine finds them; everything in the clone is built from
    nothing. Not in the default run: it takes about 10 minutes."""
    clone = work / "ci-clone"
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            check=True, capture_output=True, text=True).stdout.strip()
    log_path = work / "ci.log"
    start = time.monotonic()
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    with open(log_path, "w") as log:
        status = subprocess.run(["bash", ".ci/run"], cwd=clone, env={**os.environ, "CI": "true"},
                                stdout=log, stderr=subprocess.STDOUT).returncode
    total = time.monotonic() - start
    text = log_path.read_text(errors="replace")
    steps = re.findall(r"^== (?:\.ci/run|scripts/test): (.+?) (?:done )?at (\d+) s$", text, re.MULTILINE)
    outcome = "green" if status == 0 else f"failed (exit {status}; the log's end: {text[-300:]!r})"
    row(f"fresh-clone `CI=true bash .ci/run` at {commit}", f"{int(total // 60)} min {total % 60:.0f} s, {outcome}",
        f"{CI_LIMIT // 60} min", f"{total / CI_LIMIT:.2f}", "< 1")
    row("its steps, ended at (seconds into .ci/run)", "; ".join(f"{name} {at} s" for name, at in steps))
    shutil.rmtree(clone, ignore_errors=True)


OPT_IN = ("attack", "scale", "ci")  # sections that run only when named: each takes many minutes


def wanted(*sections):
    """Whether any of these sections runs: those named as arguments, else all but the opt-in ones."""
    chosen = sys.argv[1:]
    return any(section in chosen if chosen else section not in OPT_IN for section in sections)


def main():
    if not shutil.which("wrk"):
        sys.exit("wrk is missing: run scripts/bench, which installs it")
    work = pathlib.Path(tempfile.mkdtemp(prefix="authd-bench-"))
    os.chmod(work, 0o755)
    cluster = None
    try:
        print(f"== {os.cpu_count()} cores; wrk runs of {DURATION}; the default sections take about 12 minutes", file=sys.stderr)
        verify_ms, ceiling, fastest = hashing()
        if wanted("logins", "fastapi", "slow", "instances", "oauth", "oidc", "attack"):
            cluster = Cluster(work)
        if wanted("logins"):
            logins(work, cluster, verify_ms, ceiling, fastest)
        if wanted("slow"):
            slow_clients(work, cluster)
        if wanted("instances"):
            instances(work, cluster)
        if wanted("oauth"):
            oauth(work, cluster)
        if wanted("oidc"):
            oidc(work, cluster)
        if wanted("replicas"):
            replicas(work)
        if wanted("attack"):
            attack(work, cluster)
        if wanted("fastapi"):
            fastapi_parameters(work, cluster)
        if wanted("verify"):
            contract_verify()
        if wanted("stub"):
            stub_servers(work)
        if wanted("library"):
            stub_library()
        if wanted("scale"):
            scale(work)
        if wanted("ci"):
            ci_run(work)
    finally:
        if cluster:
            cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    print(f"\nMachine: {os.cpu_count()} cores ({cpu}); release build; wrk on loopback; PostgreSQL with fsync off.\n")
    print("| figure | value | limit or peer, same run | ratio | target |")
    print("|---|---|---|---|---|")
    for figure in rows:
        print("| " + " | ".join(figure) + " |")


if __name__ == "__main__":
    main()
