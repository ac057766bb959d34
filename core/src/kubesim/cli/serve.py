"""`kubesim serve`: the embedded cluster behind a Kubernetes API on a local port."""

from __future__ import annotations

import ipaddress
import socket
import sys
from datetime import datetime, timedelta
from types import FrameType
from typing import Any

import click

from kubesim.cli.logconfig import configure_logging
from kubesim.cli.output import OutputError, check_output, write_atomic
from kubesim.cli.params import DURATION, TIME
from kubesim.clock import DEFAULT_EPOCH, Clock
from kubesim.controllers.settle import MAX_OBJECTS, SettleLimits
from kubesim.errors import InvalidInput
from kubesim.k8s.validation import is_dns1123_subdomain
from kubesim.plugins import Hooks
from kubesim.serve.app import DEFAULT_MAX_BODY, build_app
from kubesim.scenario import UPDATE_STRATEGIES, EngineOptions
from kubesim.serve.controllers import DEFAULT_CONTROLLER_TIMEOUT, DEFAULT_GATE_TIMEOUT, OutsideControllers
from kubesim.serve.kubeconfig import controller_kubeconfig_path, dump_kubeconfig, kubeconfig
from kubesim.serve.persistence import StateDir
from kubesim.serve.scenarios import ScenarioController
from kubesim.serve.settled_when import parse_settled_when
from kubesim.serve.state import ServerState

__all__ = ["serve_command"]

EXIT_INVALID = 2


def _fail(message: str) -> None:
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_INVALID)


def is_loopback(address: str) -> bool:
    """True for 127.0.0.0/8, ::1 and "localhost"."""
    if address == "localhost":
        return True
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _bind(address: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    # proto IPPROTO_TCP: asyncio sets TCP_NODELAY only on such sockets (base_events._set_nodelay); without
    # it a keep-alive response's second write waits for the client's delayed ACK (~40 ms per request)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((address, port))
    except OSError as exc:
        sock.close()
        _fail(f"--address {address} --port {port}: cannot listen there: {exc.strerror or exc}")
    sock.listen(512)
    sock.set_inheritable(True)
    return sock


def _url(address: str, port: int) -> str:
    host = f"[{address}]" if ":" in address else address
    return f"http://{host}:{port}"


def _outside_controllers(state: ServerState, hooks: Hooks, names: tuple[str, ...], settled_when: tuple[str, ...],
                         timeout: float) -> None:
    """Register the outside controllers with their --settled-when conditions (serve/controllers.py)."""
    outside = OutsideControllers(state, timeout=timeout, gate_timeout=min(timeout, DEFAULT_GATE_TIMEOUT))
    for name in names:
        outside.add(name)
    for item in settled_when:
        name, sep, expr = item.partition("=")
        if not sep or name not in outside.controllers:
            _fail(f"--settled-when {item!r}: expected NAME=EXPR with NAME one of the --controller names")
        try:
            outside.add(name, parse_settled_when(expr, state.cluster.registry))
        except ValueError as exc:
            _fail(f"--settled-when {item!r}: {exc}")
    outside.register(hooks)
    state.outside = outside


def serve_command(hooks: Hooks) -> click.Command:
    """The `serve` command, with the plugins' run options (e.g. --scheduler-config)."""

    @click.command()
    @click.option("--address", default="127.0.0.1", show_default=True,
                  help="Address to listen on; anything but loopback requires --token.")
    @click.option("--port", type=click.IntRange(0, 65535), default=3131, show_default=True,
                  help="Port to listen on (0: any free port; the kubeconfig names the one chosen).")
    @click.option("--kubeconfig-out", type=click.Path(dir_okay=False), default="kubesim.kubeconfig",
                  show_default=True, help="Write a kubeconfig for kubectl and clients here.")
    @click.option("--controller", "controllers", multiple=True, metavar="NAME",
                  help="An outside controller: writes a kubeconfig with its own token beside --kubeconfig-out "
                       "(kubesim-NAME.kubeconfig); its writes carry NAME in the timeline. Repeatable.")
    @click.option("--settled-when", "settled_when", multiple=True, metavar="NAME=EXPR",
                  help="The outside controller NAME has settled when EXPR holds, e.g. "
                       "'no pods where spec.nodeName= and condition[PodScheduled]!=False' (for controllers "
                       "that do not report idle; see docs/serve-controllers.md). Repeatable.")
    @click.option("--controller-timeout", type=click.FloatRange(min=0.1), default=DEFAULT_CONTROLLER_TIMEOUT,
                  show_default=True,
                  help="Seconds a scenario waits for an outside controller to settle before it fails; "
                       "an out-of-turn write is held this long (at most 30 s) before 429.")
    @click.option("--token", envvar="KUBESIM_SERVE_TOKEN",
                  help="The user's bearer token (default: a random one); required off loopback.")
    @click.option("--seed", type=int, default=0, show_default=True, help="Seed for every random choice.")
    @click.option("--max-body", type=click.IntRange(min=1024), default=DEFAULT_MAX_BODY, show_default=True,
                  help="Largest request body in bytes (larger ones get 413).")
    @click.option("--step-duration", type=DURATION, default="10s", show_default=True,
                  help="Simulated time between MajorSteps.")
    @click.option("--start-time", type=TIME, default=DEFAULT_EPOCH.strftime("%Y-%m-%dT%H:%M:%SZ"),
                  show_default=True, help="Simulated time of step 0.")
    @click.option("--update-results-strategy", type=click.Choice(UPDATE_STRATEGIES),
                  envvar="UPDATE_SCENARIO_RESULTS_STRATEGY", default="AtMovingNextStep", show_default=True,
                  help="When the Scenario's status.scenarioResult is updated.")
    @click.option("--max-objects", type=click.IntRange(min=1), default=MAX_OBJECTS, show_default=True,
                  help="Fail a scenario whose cluster grows past this many objects.")
    @click.option("--state-dir", type=click.Path(file_okay=False),
                  help="Keep the cluster and the Scenarios in this directory (state.json) across restarts.")
    @click.option("--no-live", is_flag=True,
                  help="Between scenarios, do not run the in-process controllers on API writes.")
    @click.option("-v", "--verbose", count=True, help="More log output (debug).")
    @click.option("-q", "--quiet", count=True, help="Less log output; -qq for errors only.")
    def serve(address: str, port: int, kubeconfig_out: str, controllers: tuple[str, ...],
              settled_when: tuple[str, ...], controller_timeout: float, token: str | None,
              seed: int, max_body: int, step_duration: timedelta, start_time: datetime,
              update_results_strategy: str, max_objects: int, state_dir: str | None, no_live: bool,
              verbose: int, quiet: int, **plugin_options: Any) -> None:
        """Serve the embedded cluster as a Kubernetes API (kubectl, client libraries, outside controllers)."""
        import uvicorn

        configure_logging(verbose - quiet)
        loopback = is_loopback(address)
        if not loopback and not token:
            _fail(f"--address {address}: not a loopback address, so a --token is required "
                  "(every request must then carry it)")
        for name in controllers:
            if is_dns1123_subdomain(name):
                _fail(f"--controller {name!r}: expected a lowercase RFC 1123 name such as my-scheduler")
        paths = {"--kubeconfig-out": kubeconfig_out}
        paths.update({f"--controller {n}": str(controller_kubeconfig_path(kubeconfig_out, n)) for n in controllers})
        for option, path in paths.items():
            try:
                check_output(path)
            except OutputError as exc:
                _fail(f"{option}: {exc}")
        try:
            # as `kubesim run` (cli/main.py run()) builds them; the plugins' options go to their controllers
            options = EngineOptions(seed=seed, step_duration=step_duration, start_time=start_time,
                                    update_strategy=update_results_strategy,
                                    settle_limits=SettleLimits(max_objects=max_objects),
                                    plugin_options=plugin_options)
            state = ServerState.create(hooks, seed=seed, clock=Clock(start_time), require_token=not loopback)
            store = StateDir(state_dir, state) if state_dir else None
            if store is not None:
                store.prepare()
                store.load()
        except InvalidInput as exc:
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            sys.exit(EXIT_INVALID)
        if token:
            state.set_admin_token(token)
        if controllers:
            _outside_controllers(state, hooks, controllers, settled_when, controller_timeout)
        elif settled_when:
            _fail("--settled-when: no --controller NAME to apply it to")
        sock = _bind(address, port)
        url = _url(address, sock.getsockname()[1])
        write_atomic(kubeconfig_out, dump_kubeconfig(kubeconfig(url, state.admin_token, "user")))
        for name in controllers:
            write_atomic(controller_kubeconfig_path(kubeconfig_out, name),
                         dump_kubeconfig(kubeconfig(url, state.add_controller(name), name)))
        scenarios = ScenarioController(state, hooks, options, live=not no_live,
                                       persist=store.save if store is not None else None)
        scenarios.mark_restarted()
        scenarios.start()
        click.echo(f"kubesim serve: listening on {url} (kubeconfig: {kubeconfig_out})", err=True)
        # idle keep-alive connections are closed after 90 s, as kube-apiserver's IdleTimeout
        # (k8s.io/apiserver pkg/server/secure_serving.go); uvicorn's 5 s default races client reuse
        config = uvicorn.Config(build_app(state, max_body=max_body), log_level="warning", access_log=False,
                                timeout_graceful_shutdown=5, timeout_keep_alive=90)
        server = uvicorn.Server(config)
        handle_exit = server.handle_exit

        def stop(sig: int, frame: FrameType | None) -> None:
            state.event_log.close()  # open watches end first, else the graceful shutdown waits for them
            handle_exit(sig, frame)

        server.handle_exit = stop  # type: ignore[method-assign]
        try:
            server.run(sockets=[sock])
        finally:
            scenarios.stop()
            if store is not None:
                try:
                    store.save(force=True)
                except OutputError as exc:
                    click.echo(f"error: --state-dir: {exc}", err=True)

    for option in hooks.run_options():
        serve.params.append(option)
    return serve
