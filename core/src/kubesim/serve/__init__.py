"""`kubesim serve`: the embedded cluster behind a Kubernetes-style HTTP API (KEP-140's API server).

state.py holds the served cluster and its lock, resources.py maps URLs to registered kinds,
app.py is the ASGI application (starlette, run by uvicorn) that dispatches requests.
"""

from kubesim.serve.state import Identity, ServerState

__all__ = ["Identity", "ServerState"]
