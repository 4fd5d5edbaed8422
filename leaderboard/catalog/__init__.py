"""The benchmark catalog: importing suites, tasks and rubrics, reported figures, run badges and who
may see which runs. Uses the models and the harness's task files only."""
