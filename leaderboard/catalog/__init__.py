"""The benchmark catalog: importing suites, tasks and rubrics (`task_import`), reported figures
(`reported`), run badges (`badges`), who may see which runs and catalog reads (`selectors`), free
slugs (`slugs`), the site's search with its page (`search`) and session tasks' hidden intents on task pages
(`sessions`). May use the models and the harness's
task files only; every room above it may import it."""
