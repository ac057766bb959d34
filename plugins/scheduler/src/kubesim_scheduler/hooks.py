"""kubesim hook implementations of the scheduler plugin (filled in once the core plugin manager exists)."""
