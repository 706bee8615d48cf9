"""The one-command sandbox behind `make run`: the seed's whole world on 127.0.0.1.

`nufi_sandbox.__main__` is its command line; `orchestrator.Sandbox` starts, watches and stops it.
"""
