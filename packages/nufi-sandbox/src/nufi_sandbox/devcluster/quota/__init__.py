"""ResourceQuota: the usage evaluators, the admission check on create, and the status the controller keeps."""

from nufi_sandbox.devcluster.quota.tracker import ResourceQuotas

__all__ = ["ResourceQuotas"]
