"""Our judge on the site and how far to trust it: judging stored trajectories and runs
(`our_judge`), human labels and the labelling queue (`labelling`, `admin_labelling`), judge
reliability (`reliability`), each judge's agreement with people and the leaderboard's mark
(`agreement`), and their pages (`views`) and API (`api`). May use the catalog, the queue, the judge
spec and the harness judge (scoring and recording, below it, are allowed too)."""
