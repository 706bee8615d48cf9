"""Workloads: projects (namespaces with members), the accelerators they may ask for, inference
deployments and labs."""
