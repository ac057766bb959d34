"""A plugin module that never finishes loading: any `kubesim` command that loads it hangs."""

import time

while True:
    time.sleep(60)
