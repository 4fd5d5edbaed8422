"""The analysis pages' figures: heatmaps (`heatmaps`), failure taxonomy (`taxonomy`), scaling and
action shapes (`scaling`), the model page (`model_page`), per-task rates (`task_rates`), what they
share (`queries`: filters, per-version caching, scored runs) and their chart specs (`charts`).
May use scoring, the catalog and the models; the boards' pages and API routers and the template
tags import it, never the concerns launched from the site."""
