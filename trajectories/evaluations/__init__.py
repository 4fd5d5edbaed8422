"""Evaluations launched from the site: launch, execute a trajectory in a VM slot, rerun, cancel and
progress (`lifecycle`), the agent and guest backend a trajectory runs with (`agent_backend`), VM
slots (`slots`), the run table (`run_table`), the admin launch pages (`admin_launch`), the API router
(`api`) and views. May use judging, scoring, recording, the catalog, the queue and the harness."""
