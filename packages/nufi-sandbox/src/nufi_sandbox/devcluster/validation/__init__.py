"""The dev cluster's checks between decoding and storage: defaulting, validation and their vocabulary.

Mirrors `k8s.io/kubernetes/pkg/apis/core/validation` (object metadata, Services, pod specs) with the
defaulting a client notices, over the pieces of `k8s.io/apimachinery` they are built from: name and label
syntax (`util/validation`), the causes of an `Invalid` Status (`util/validation/field`) and resource
quantities (`api/resource`). Selectors and the simulation reuse the names and quantities.
"""
