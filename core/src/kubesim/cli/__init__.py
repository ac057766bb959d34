"""The kubesim command line."""
