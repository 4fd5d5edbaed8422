"""Our judge on the site and how far to trust it: judging stored trajectories and runs
(`our_judge`), human labels (`labelling`, `admin_labelling`), judge reliability (`reliability`) and
its pages (`views`). May use the catalog, the queue, the judge spec and the harness judge (scoring
and recording, below it, are allowed too)."""
