"""The dev cluster's storage: etcd and the generic registry of the API server, in memory.

Mirrors `k8s.io/apiserver/pkg/registry/generic/registry` over `k8s.io/apiserver/pkg/storage`: objects
keyed by group, resource, namespace and name, one resourceVersion counter for every write, optimistic
concurrency (409 Conflict), what an update may change, `continue` tokens of paginated lists, and the
events watchers are fed, with a bounded history that answers 410 Gone like etcd compaction.
"""
