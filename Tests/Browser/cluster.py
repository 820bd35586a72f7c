"""Scripts/cluster for the browser test: starts it (two instances behind nginx), reads what it prints, checks which
instances nginx used, and stops it the way Ctrl-C does, checking that nothing is left behind."""
import os
import re
import signal
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
START_SECONDS = 120  # initdb, the stand-in, two instances migrating one empty database, nginx
STOP_SECONDS = 60  # the script's own limit per step is 20 s
PROCESS_LINE = re.compile(r"^(postgres|fake-apple|siwa \d+|nginx) +pid (\d+) +(\S+)")


class Cluster:
    def __init__(self, binary, workdir, port, instances=2):
        self.port = port
        self.log_path = os.path.join(workdir, "cluster.log")
        self.pids = {}
        self.instance_ports = []
        self.folder = None
        with open(self.log_path, "w") as log:
            self.process = subprocess.Popen(
                [os.path.join(ROOT, "Scripts", "cluster"), "--instances", str(instances), "--port", str(port)],
                cwd=ROOT, env={**os.environ, "SIWA_BINARY": binary}, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, which a terminal's Ctrl-C would signal
            )
        self._wait_until_started()

    def _wait_until_started(self):
        deadline = time.time() + START_SECONDS
        while time.time() < deadline:
            text = self.output()
            if "Open http://" in text:
                break
            if self.process.poll() is not None:
                raise RuntimeError(f"Scripts/cluster exited with {self.process.returncode}:\n{text[-4000:]}")
            time.sleep(0.2)
        else:
            raise RuntimeError(f"Scripts/cluster did not start in {START_SECONDS} s:\n{self.output()[-4000:]}")
        for line in text.splitlines():
            if match := PROCESS_LINE.match(line):
                self.pids[match[1]] = int(match[2])
                if match[1].startswith("siwa "):
                    self.instance_ports.append(int(match[3].rsplit(":", 1)[1]))
            elif line.startswith("folder "):
                self.folder = line.split(maxsplit=1)[1]
        assert len(self.instance_ports) == 2 and self.folder, f"unexpected output:\n{text}"

    def output(self):
        with open(self.log_path) as log:
            return log.read()

    def upstream_counts(self):
        """Requests of the browser (not the script's readiness probe) each instance's port answered, from nginx's
        access log, which names the upstream of every request."""
        counts = {port: 0 for port in self.instance_ports}
        with open(os.path.join(self.folder, "nginx", "access.log")) as log:
            for line in log:
                match = re.search(r'"(\S+) (\S+) [^"]*" (\d+) upstream=127\.0\.0\.1:(\d+)$', line.strip())
                if match and match[2] != "/ready" and int(match[4]) in counts:
                    counts[int(match[4])] += 1
        return counts

    def instance_logs(self):
        tails = []
        for name in sorted(n for n in self.pids if n.startswith("siwa ")):
            path = os.path.join(self.folder, name.replace(" ", "-") + ".log")
            if os.path.exists(path):
                with open(path) as log:
                    tails.append(f"--- {name} ---\n{log.read()[-2000:]}")
        return "\n".join(tails)

    def interrupt(self):
        """Ctrl-C: SIGINT to the whole process group; returns the script's exit status."""
        os.killpg(self.process.pid, signal.SIGINT)
        return self.process.wait(timeout=STOP_SECONDS)

    def leftovers(self):
        """The processes the script started that still run, and whether its folder is still there."""
        running = [f"{name} ({pid})" for name, pid in self.pids.items() if is_running(pid)]
        running += [f"pid {pid} of the group" for pid in group_members(self.process.pid)]
        return running, os.path.exists(self.folder)

    def kill(self):
        """Last resort when a check failed half way: nothing must outlive the test."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def process_state(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
            return fields[0], int(fields[2])  # state, process group
    except (OSError, IndexError, ValueError):
        return None


def is_running(pid):
    state = process_state(pid)
    return state is not None and state[0] != "Z"


def group_members(group):
    pids = (int(entry) for entry in os.listdir("/proc") if entry.isdigit())
    return [pid for pid in pids if (state := process_state(pid)) and state[1] == group and state[0] != "Z"]
