"""Tests of harness/judge: the judge's protocols, answer parser, providers, limiter and retries."""
