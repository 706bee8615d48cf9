"""Workloads: projects (namespaces with members), the accelerators they may ask for, inference
deployments and labs.

Import from the modules themselves: no package of workloads re-exports names.
"""
