#!/usr/bin/env python3
"""The files issue's check with wrk: server CPU per request over hot files, as ratios in one run.

Each point is a closed loop at wrk's pace (`wrk -t1`, pinned to CLIENT_CPU, the server alone
on SERVER_CPU), rotating over 16 files of the size so every request is a file of the page
cache; wrk checks statuses only (no body byte), so this is a cross-check of the files
study and of the verdict's fixed-rate file rows (results/workloads.md), not a result of the
report. Rounds interleave every server (the order reversed every other round); a ratio is
taken within a round, then summarized as the geometric mean of the rounds with a 95%
interval (Student's t on the log ratios). `client %` is wrk's CPU over the point: at 90% or
more the loop ran at the client's pace (client-bound), which it does for every server at
1 MiB here, so the servers met about the same rate.

  scripts/files_wrk.py                      # 4 rounds of 4 s per point (about 9 minutes)
  ROUNDS=2 DURATION=2 scripts/files_wrk.py   # a quicker look
"""
import math, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

ROUNDS = min(int(os.environ.get("ROUNDS", "4")), 12)
SECONDS = int(os.environ.get("DURATION", "4"))
SERVER_CPU = os.environ.get("SERVER_CPU", "0")
CLIENT_CPU = os.environ.get("CLIENT_CPU", "1")
PORT = 18097
SIZES = [("1 MiB", "m", 1 << 20), ("4 KiB", "k", 4 << 10)]
CONNECTIONS = [16, 256]
RUNTIMES = ["tokio_uring_server", "monoio_server", "compio_server"]
# name -> argv after the binary (the address and the files directory are added).
SERVERS = {
    "io_uring_server": ["io_uring_server"],
    "tokio_server (codec, sendfile)": ["tokio_server", "--engine", "codec", "--sendfile"],
    "nginx": None,
    **{name: [name] for name in RUNTIMES},
}
T975 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26,
        10: 2.23, 11: 2.20}
TICK = os.sysconf("SC_CLK_TCK")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_ticks(pid):
    """User + system CPU of the whole process (every thread, exited ones included)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_ready():
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=0.1).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("files_wrk: a server did not start listening")


def start(name, files, run_dir):
    """The server pinned to SERVER_CPU, and the pid whose CPU is its cost."""
    if SERVERS[name] is None:
        template = open(os.path.join(ROOT, "nginx", "nginx.conf")).read()
        for key, value in {"MAX_CONNECTIONS": "4096", "RUN_DIR": run_dir, "PORT": str(PORT),
                           "TEXT_PLAIN": "text/plain", "HELLO": "Hello, world!",
                           "FILES_DIR": files}.items():
            template = template.replace(f"@{key}@", value)
        os.makedirs(os.path.join(run_dir, "www"), exist_ok=True)
        conf = os.path.join(run_dir, "nginx.conf")
        open(conf, "w").write(template)
        proc = subprocess.Popen(["taskset", "-c", SERVER_CPU, "nginx", "-p", run_dir, "-c", conf],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        wait_ready()
        worker = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True)
        return proc, int(worker.stdout.split()[0])
    argv = SERVERS[name]
    binary = os.path.join(ROOT, "target", "release", argv[0])
    proc = subprocess.Popen(["taskset", "-c", SERVER_CPU, binary, *argv[1:], "--addr",
                             f"127.0.0.1:{PORT}", "--files-dir", files],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    wait_ready()
    return proc, proc.pid


def wrk(script, prefix, conns, seconds):
    """Requests wrk made and its CPU seconds; any error or non-2xx answer stops the run."""
    proc = subprocess.Popen(["taskset", "-c", CLIENT_CPU, "wrk", "-t1", f"-c{conns}",
                             f"-d{int(seconds)}s", "-s", script, f"http://127.0.0.1:{PORT}", "--",
                             prefix], stdout=subprocess.PIPE, text=True)
    out = proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    if "Non-2xx" in out or "Socket errors" in out:
        sys.exit(f"files_wrk: wrk saw errors:\n{out}")
    requests = int(next(l for l in out.splitlines() if "requests in" in l).split()[0])
    return requests, usage.ru_utime + usage.ru_stime


def point(name, files, script, prefix, conns, run_dir):
    proc, pid = start(name, files, run_dir)
    try:
        wrk(script, prefix, conns, 1)
        before = cpu_ticks(pid)
        requests, client = wrk(script, prefix, conns, SECONDS)
        used = (cpu_ticks(pid) - before) / TICK
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            print(f"files_wrk: {name} did not stop on SIGTERM within 10 s; killed", file=sys.stderr)
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return used * 1e6 / requests, client / SECONDS, used / SECONDS, requests / SECONDS


def interval(ratios):
    logs = [math.log(r) for r in ratios]
    mean = sum(logs) / len(logs)
    if len(logs) < 2:
        return math.exp(mean), math.nan, math.nan
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    half = T975[len(logs) - 1] * sd / math.sqrt(len(logs))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def main():
    for tool in ("wrk", "nginx"):
        if not shutil.which(tool):
            sys.exit(f"files_wrk: {tool} is not installed (apt-get install -y wrk nginx)")
    # The build the harness makes (harness/src/servers/mod.rs), so its binaries are reused.
    subprocess.run(["cargo", "build", "--profile", "bench", "-q", "--workspace", "--benches",
                    "--bin", "io_uring_server", "--bin", "tokio_server",
                    *sum((["--bin", r] for r in RUNTIMES), [])], cwd=ROOT, check=True)
    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="files_wrk.")
    os.chmod(work, 0o755)  # nginx's worker runs as nobody when started by root
    try:
        files = os.path.join(work, "files")
        os.makedirs(files)
        for _, prefix, size in SIZES:
            for i in range(16):
                with open(os.path.join(files, f"{prefix}{i}"), "wb") as f:
                    f.write(os.urandom(size))
        script = os.path.join(work, "rotate.lua")
        open(script, "w").write('local i = 0\ninit = function(args) prefix = args[1] end\n'
                                'request = function()\n  i = (i + 1) % 16\n'
                                '  return wrk.format("GET", "/files/" .. prefix .. i)\nend\n')
        names = list(SERVERS)
        cost = {}  # (size, conns, name) -> [(µs, client busy, server busy, req/s)] by round
        for r in range(ROUNDS):
            order = names if r % 2 == 0 else names[::-1]
            for label, prefix, _ in SIZES:
                for conns in CONNECTIONS:
                    for name in order:
                        result = point(name, files, script, prefix, conns, os.path.join(work, "nginx"))
                        cost.setdefault((label, conns, name), []).append(result)
                        print(f"round {r + 1}/{ROUNDS} {label} c={conns} {name}: "
                              f"{result[0]:.1f} µs/request, {result[3]:,.0f} requests/s, "
                              f"server {result[2]:.0%}, client {result[1]:.0%} busy",
                              file=sys.stderr)
        report(cost, commit)
    finally:
        shutil.rmtree(work)


def report(cost, commit):
    print(f"# Hot files with wrk at {commit}: {ROUNDS} rounds of {SECONDS:g} s, server on CPU "
          f"{SERVER_CPU}, wrk -t1 on CPU {CLIENT_CPU}\n")
    print("Each cell: the median over the rounds of server CPU µs per request, then (server "
          "busy, client busy): a server near 100% busy ran flat out, where each wake-up "
          "carries more requests than one the client held back.\n")
    print("| files | conns | " + " | ".join(SERVERS) + " |")
    print("|---|---|" + "---|" * len(SERVERS))
    median = statistics.median
    for label, _, _ in SIZES:
        for conns in CONNECTIONS:
            cells = []
            for n in SERVERS:
                points = cost[(label, conns, n)]
                cells.append(f"{median([p[0] for p in points]):.1f} "
                             f"({median([p[2] for p in points]):.0%}, "
                             f"{median([p[1] for p in points]):.0%})")
            print(f"| {label} | {conns} | " + " | ".join(cells) + " |")
    print("\nio_uring_server ÷ baseline, per round: geometric mean (95% interval)\n")
    for label, _, _ in SIZES:
        for conns in CONNECTIONS:
            mine = [p[0] for p in cost[(label, conns, "io_uring_server")]]
            base = {n: [p[0] for p in cost[(label, conns, n)]] for n in SERVERS}
            # The best runtime is the one cheapest over all rounds (geometric mean), not
            # each round's cheapest, which would pick the noise.
            best = min(RUNTIMES, key=lambda n: sum(math.log(c) for c in base[n]))
            for against, theirs in (("nginx", base["nginx"]),
                                    ("tokio_server (codec, sendfile)",
                                     base["tokio_server (codec, sendfile)"]),
                                    (f"the best runtime ({best})", base[best])):
                est, lo, hi = interval([m / t for m, t in zip(mine, theirs)])
                print(f"- {label}, {conns} connections, ÷ {against}: {est:.2f} ({lo:.2f}-{hi:.2f})")


if __name__ == "__main__":
    main()
