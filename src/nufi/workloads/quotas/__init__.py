"""Quotas: each project's accelerator ResourceQuota, the room it leaves, and the recent reads forms share."""
