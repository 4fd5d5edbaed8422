"""Tests of harness/ (Django-free): agents, actions and their translation, archives and bundles,
task files, environments and guests."""
