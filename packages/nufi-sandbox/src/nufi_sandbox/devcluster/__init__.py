"""The dev cluster: an in-memory Kubernetes API server, a test double speaking the real REST wire format.

`python -m nufi_sandbox.devcluster` (`__main__`) serves it on 127.0.0.1, over http and over https
with a certificate of its own (`tls`), to the holder of its bearer token alone (`wire/authn.py`), and
writes a kubeconfig (`kubeconfig`); `launcher` starts that process for tests and the sandbox; `server`
holds the HTTP handlers. `resources` lists the resource types served and `errors` the Status errors
every part raises. Below them, by the part of Kubernetes they mirror: `wire` (routing, discovery,
OpenAPI, tables, scale, watch stream), `storage` (store, update rules, continue tokens, watch events),
`patching` (JSON, merge and strategic merge patch), `validation` (defaulting, validation, names,
quantities), `selectors` (label and field selectors), `sim` (scheduler, kubelets and workload
controllers) and `kubelet` (the kubelet's gRPC side: device plugin registration, allocation,
PodResources).
"""
