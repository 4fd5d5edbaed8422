"""Author submissions: upload checks (`validation`), storing through the ingest path (`uploads`,
at low priority: `low_priority`; the early check of an upload request: `upload_gate`), review and
progress (`review`), the words authors read (`words`), with their API router (`api`) and views.
May use accounts (tokens, rate limits), recording, judging, the catalog and the harness's archive
and bundles."""
