"""Pod creates through `kubesim serve`'s HTTP API, watched until bound.

Starts the installed `kubesim serve`, creates `--nodes` nodes (node-default.yaml), opens one
watch on all pods, then `--clients` concurrent clients (threads, each on its own keep-alive
connection with TCP_NODELAY, as client-go and urllib3 connect) create `--pods` pods
(pod-default.yaml) in one namespace. The watch counts every event and every pod bound
(spec.nodeName set) until all are bound or no bind came for `--bind-wait` seconds.

Printed: creates/s (first create sent to last acknowledged), the server's CPU time per
create (steadier than the rates on a shared machine), watch events/s (received by
the one watcher, over the same window until its last event), pods bound and binds/s, and
the server's peak RSS (VmHWM). Pods are bound by the in-process scheduler, which reacts to API
writes between scenarios (serve's live mode, on unless --no-live).

    python benchmarks/serve_creates.py                     # 8 clients, 10,000 pods, 300 nodes
    python benchmarks/serve_creates.py --pods 200 --nodes 5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from serve_load import cpu_seconds, peak_rss_mib
from workloads import default_node, default_pod

from kubesim.testing import KubesimServer
from kubesim.testing.watchstream import WatchStream, connection, request_json

NAMESPACE = "bench"


class Watcher:
    """Reads the pod watch in a thread: events received, pods bound, when the last one came."""

    def __init__(self, stream: WatchStream) -> None:
        self.stream = stream
        self.events = 0
        self.bound: set[str] = set()
        self.last_event = 0.0
        self.last_bind = 0.0
        self.error = ""
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for event in self.stream.events():
                now = time.monotonic()
                self.events += 1
                self.last_event = now
                obj = event["object"]
                if event["type"] == "ERROR":
                    self.error = str(obj)
                    return
                if obj.get("spec", {}).get("nodeName") and obj["metadata"]["name"] not in self.bound:
                    self.bound.add(obj["metadata"]["name"])
                    self.last_bind = now
        except Exception as exc:  # noqa: BLE001 - printed
            self.error = repr(exc)


def create_pods(url: str, client: int, names: list[str], errors: list[str]) -> None:
    conn = connection(url, 60)
    try:
        for name in names:
            status, body = request_json(url, "POST", f"/api/v1/namespaces/{NAMESPACE}/pods",
                                        default_pod(name, NAMESPACE), via=conn, timeout=60)
            if status != 201:
                errors.append(f"client {client}: {name}: {status} {body}")
                return
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=10_000)
    parser.add_argument("--nodes", type=int, default=300, help="300 nodes hold 12,000 default pods")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--bind-wait", type=float, default=10.0,
                        help="stop waiting for binds after this many seconds without one")
    args = parser.parse_args()
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as workdir, KubesimServer(workdir) as server:
        url = server.url
        conn = connection(url, 60)
        for i in range(args.nodes):
            status, body = request_json(url, "POST", "/api/v1/nodes", default_node(f"node-{i:05d}"), via=conn)
            if status != 201:
                errors.append(f"node {i}: {status} {body}")
        request_json(url, "POST", "/api/v1/namespaces", {"metadata": {"name": NAMESPACE}}, via=conn)
        _, listed = request_json(url, "GET", f"/api/v1/namespaces/{NAMESPACE}/pods", via=conn)
        conn.close()
        rv = listed["metadata"]["resourceVersion"]
        watcher = Watcher(WatchStream(url, f"/api/v1/namespaces/{NAMESPACE}/pods?watch=1&resourceVersion={rv}",
                                      timeout=600))
        names = [f"pod-{i:05d}" for i in range(args.pods)]
        shares = [names[i::args.clients] for i in range(args.clients)]
        cpu_before = cpu_seconds(server.pid)
        start = time.monotonic()
        threads = [threading.Thread(target=create_pods, args=(url, i, share, errors), daemon=True)
                   for i, share in enumerate(shares)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(600)
        created = time.monotonic() - start
        cpu = cpu_seconds(server.pid) - cpu_before
        # wait for the watch to catch up, then for binds to stop coming
        deadline = time.monotonic() + 60
        while watcher.events < args.pods and time.monotonic() < deadline and not watcher.error:
            time.sleep(0.05)
        while not watcher.error:  # then until events stop: the kubelet's status updates follow the binds
            quiet = time.monotonic() - max(watcher.last_bind, watcher.last_event, start)
            if quiet > args.bind_wait or (len(watcher.bound) == args.pods and quiet > 1.0):
                break
            time.sleep(0.05)
        rss = peak_rss_mib(server.pid)
        watcher.stream.close()
    events_window = max(watcher.last_event - start, 1e-9)
    print(f"serve creates: {args.pods} pods, {args.nodes} nodes, {args.clients} clients")
    print(f"  creates      {args.pods / created:8.0f} /s  ({created:.2f} s)")
    print(f"  server CPU   {cpu / args.pods * 1e6:8.0f} us per create (user+system, while creating: a figure "
          f"that other load on the machine disturbs less than the rates)")
    print(f"  watch events {watcher.events / events_window:8.0f} /s  ({watcher.events} events in "
          f"{events_window:.2f} s)")
    bound = len(watcher.bound)
    if bound:
        print(f"  bound        {bound} of {args.pods}, {bound / max(watcher.last_bind - start, 1e-9):.0f} binds/s")
    else:
        print(f"  bound        0 of {args.pods} (no in-process scheduler bound a pod: is the scheduler plugin "
              f"installed, and live mode on?)")
    print(f"  server peak RSS {rss:.0f} MiB")
    for error in [*errors[:10], *([watcher.error] if watcher.error else [])]:
        print(f"  ERROR {error}")
    return 1 if errors or watcher.error else 0


if __name__ == "__main__":
    sys.exit(main())
