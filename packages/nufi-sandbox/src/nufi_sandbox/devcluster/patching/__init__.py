"""The dev cluster's PATCH: the three patch types the API server accepts for a JSON object.

JSON Patch (RFC 6902) and JSON Merge Patch (RFC 7386) as any API server applies them, and the strategic
merge patch of `k8s.io/apimachinery/pkg/util/strategicpatch`, which merges lists by the patch tags
(`patchStrategy`, `patchMergeKey`) of the built-in Go types reproduced per kind.
"""
