"""Experiments layer: experiment specs, executors, the resumable run store, statistics, reports and
figures."""
