"""The trajectory player and trajectory pages: payloads, their API router and views. Uses recording,
judging's stored judgments (through the models) and the catalog."""
