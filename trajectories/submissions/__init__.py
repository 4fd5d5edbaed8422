"""Author submissions: upload checks, storing through the ingest path, review, API tokens and rate
limits, with their API router and views. Uses recording, judging, the catalog and the harness."""
