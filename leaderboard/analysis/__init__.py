"""The analysis pages' figures: heatmaps, failure taxonomy, scaling and model pages, and their chart
specs. Uses scoring, the catalog and the models."""
