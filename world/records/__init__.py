"""The loaded world: loading a seeding build (`loading`), reading it for pages (`browse`), the summary's
Markdown (`summary`) and the world behind one task (`task_world`). May use world.models, scoring's
data version and seeding's Django-free constants and entity extractor."""
