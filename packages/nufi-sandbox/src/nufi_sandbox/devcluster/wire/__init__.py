"""The dev cluster's wire format: what the API server's HTTP endpoints say and how they read a request.

Mirrors `k8s.io/apiserver/pkg/endpoints`: a REST path resolved into its resource (request info), the
discovery and OpenAPI documents clients read first, server-side printing as a Table, the `scale`
subresource's Scale view, and the newline-delimited event stream of a watch. The handlers that tie them
together are `devcluster.server`; objects themselves come from `devcluster.storage`.
"""
