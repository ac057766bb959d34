"""A minimal third-party kubesim plugin used by the test suite."""
