"""The Django-free harness core: task files, result-folder bundles, (later) the Control API
client, agents, the agent loop and the judge. Imports nothing from Django."""
