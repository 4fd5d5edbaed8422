"""Storing and reading trajectories: the one ingest path (`ingest`, step by step `live_ingest`; result
folders and archives `import_results`, `archive_import`, their run rows `import_runs` and report
`import_notes`), rubric versions and imported judges (`rubric_versions`), screenshots and their
derivatives (`media`, `media_access`, `media_sweep`), action counts, state-check results, failure
modes from deterministic signals (`failure_signals`), the contamination scan (`contamination`), what
a stored trajectory asks for (`after_finish`) and trajectory reads (`selectors`). May use the
catalog, the queue, the judge spec, the project's outage errors (mypcbench_site.outages), the models
and the harness."""
